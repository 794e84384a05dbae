import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * Documents and bulk customer imports. Uploaded bytes live in tables of their own (documents'
 * files; an import's rows in batches), so listing or reading the metadata never reads them, and
 * every process reads them from the database it shares.
 */
export const m021Documents: MigrationFactory = (engine) => ({
  async up(db: Kysely<any>) {
    const bytes = engine === 'postgres' ? 'bytea' : 'blob';
    await db.schema
      .createTable('documents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('holder_id', 'text', (c) => c.notNull())
      .addColumn('document_type', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('list_position', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('documents_platform_page').on('documents').columns(['platform_id', 'list_position', 'id']).execute();
    await db.schema.createIndex('documents_holder_page').on('documents').columns(['platform_id', 'holder_id', 'list_position', 'id']).execute();
    await db.schema
      .createTable('document_files')
      .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id').onDelete('cascade'))
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('bytes', bytes, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('bulk_import_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('processed', 'integer', (c) => c.notNull())
      .addColumn('successful', 'integer', (c) => c.notNull())
      .addColumn('failed', 'integer', (c) => c.notNull())
      .addColumn('next_batch', 'integer', (c) => c.notNull())
      .addColumn('batch_count', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .execute();
    await db.schema
      .createTable('bulk_import_batches')
      .addColumn('job_id', 'text', (c) => c.notNull().references('bulk_import_jobs.id').onDelete('cascade'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('rows', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('bulk_import_batches_pk', ['job_id', 'seq'])
      .execute();
    await db.schema
      .createTable('bulk_import_errors')
      .addColumn('job_id', 'text', (c) => c.notNull().references('bulk_import_jobs.id').onDelete('cascade'))
      .addColumn('row_number', 'integer', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('bulk_import_errors_pk', ['job_id', 'row_number'])
      .execute();
  },
});
