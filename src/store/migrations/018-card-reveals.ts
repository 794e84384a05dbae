import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * Card reveals: each signed reveal URL a platform was given, who asked for it (the API token, for
 * the audit), until when it works, and when it was used (once at most).
 */
export const m018CardReveals: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('card_reveals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull())
      .addColumn('card_id', 'text', (c) => c.notNull())
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('card_reveals_by_card').on('card_reveals').columns(['platform_id', 'card_id', 'created_at']).execute();
  },
});
