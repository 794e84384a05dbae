import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** Answers kept for Idempotency-Key replays: one per (token, key digest), body sealed, pruned by expiry. */
export const m007IdempotencyKeys: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('key_sha256', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('body_sha256', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('content_type', 'text')
      .addColumn('body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['token_id', 'key_sha256'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
  },
});
