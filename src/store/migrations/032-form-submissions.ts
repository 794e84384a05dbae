import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * The console's form submissions (see domain/platform/form-submissions.ts): each rendered page's
 * token, per form and values it was sent with (one digest, the id), and where its first submission
 * led, so that the same form sent twice (a double click, a reload, the back button) does its work once.
 */
export const m032FormSubmissions: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('form_submissions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('location', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('form_submissions_created').on('form_submissions').column('created_at').execute();
  },
});
