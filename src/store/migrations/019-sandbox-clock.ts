import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * The sandbox clock: each platform row's offset from real time (0 for production scopes, which never
 * advance); a platform's override of the authorization time-to-live; a job's platform and its due
 * time on that platform's clock, so an advance pulls it forward; and an index of the open
 * authorizations by authorization time, for the set-based expiry.
 */
export const m019SandboxClock: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('platforms').addColumn('clock_offset_ms', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('platform_webhook_config').addColumn('sandbox_authorization_ttl_ms', 'bigint').execute();
    await db.schema.alterTable('jobs').addColumn('platform_id', 'text').execute();
    await db.schema.alterTable('jobs').addColumn('platform_due_at', 'bigint').execute();
    await db.schema
      .createIndex('jobs_queued_platform_due')
      .on('jobs')
      .columns(['platform_id', 'platform_due_at'])
      .where(sql.ref('state'), '=', sql.lit('queued'))
      .execute();
    await db.schema
      .createIndex('card_transactions_open_by_authorized_at')
      .on('card_transactions')
      .columns(['platform_id', 'authorized_at'])
      .where(sql.ref('status'), '=', sql.lit('AUTHORIZED'))
      .execute();
  },
});
