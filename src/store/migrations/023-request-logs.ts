import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** The request log: one row per authenticated request, its bodies already redacted. */
export const m023RequestLogs: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('request_logs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull())
      .addColumn('token_id', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('query', 'text')
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('duration_us', 'integer', (c) => c.notNull())
      .addColumn('client_request_id', 'text')
      .addColumn('request_body', 'text')
      .addColumn('response_body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    // The list, newest first, per platform; pruning by age and by count reads created_at alone.
    await db.schema.createIndex('request_logs_platform_page').on('request_logs').columns(['platform_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('request_logs_created').on('request_logs').columns(['created_at']).execute();
  },
});
