// Written once per engine: lockBulkImport.
import { sql } from 'kysely';
import type { Executor } from './store.js';
import type { BulkImportJobRow, BulkImportStatus } from './tables/bulk-imports.js';
import type { UnitOfWork } from './unit-of-work.js';

export async function insertBulkImport(db: Executor, row: BulkImportJobRow): Promise<void> {
  await db.insertInto('bulk_import_jobs').values(row).execute();
}

export async function insertBulkImportBatch(db: Executor, jobId: string, seq: number, rows: string): Promise<void> {
  await db.insertInto('bulk_import_batches').values({ job_id: jobId, seq, rows }).execute();
}

export async function findBulkImport(db: Executor, platformId: string, id: string): Promise<BulkImportJobRow | undefined> {
  return db.selectFrom('bulk_import_jobs').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

/** findBulkImport, to advance the import: on PostgreSQL its row stays locked until the unit of work ends (SQLite's transactions are serialized already). */
export async function lockBulkImport(uow: UnitOfWork, id: string): Promise<BulkImportJobRow | undefined> {
  const query = uow.db.selectFrom('bulk_import_jobs').selectAll().where('id', '=', id);
  return (uow.engine === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

export async function updateBulkImport(db: Executor, id: string, changes: Partial<Omit<BulkImportJobRow, 'id' | 'platform_id'>>): Promise<void> {
  await db.updateTable('bulk_import_jobs').set(changes).where('id', '=', id).execute();
}

/** Only a job still in `status` changes, so a late second call does nothing; answers whether it changed. */
export async function moveBulkImport(db: Executor, id: string, status: BulkImportStatus, changes: Partial<Omit<BulkImportJobRow, 'id' | 'platform_id'>>): Promise<boolean> {
  const res = await db.updateTable('bulk_import_jobs').set(changes).where('id', '=', id).where('status', '=', status).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Deletes an import that never started (its upload failed or was a replay), with its rows. */
export async function deleteBulkImport(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('bulk_import_batches').where('job_id', '=', id).execute();
  await db.deleteFrom('bulk_import_errors').where('job_id', '=', id).execute();
  await db.deleteFrom('bulk_import_jobs').where('id', '=', id).where('status', '=', 'STAGING').execute();
}

export async function findBulkImportBatch(db: Executor, jobId: string, seq: number): Promise<string | undefined> {
  return (await db.selectFrom('bulk_import_batches').select('rows').where('job_id', '=', jobId).where('seq', '=', seq).executeTakeFirst())?.rows;
}

/** An imported batch's rows are not needed again: its customers and errors are written. */
export async function deleteBulkImportBatch(db: Executor, jobId: string, seq: number): Promise<void> {
  await db.deleteFrom('bulk_import_batches').where('job_id', '=', jobId).where('seq', '=', seq).execute();
}

export async function insertBulkImportErrors(db: Executor, jobId: string, errors: { row_number: number; body: string }[]): Promise<void> {
  if (errors.length > 0) await db.insertInto('bulk_import_errors').values(errors.map((e) => ({ job_id: jobId, ...e }))).execute();
}

/** The error entries in row order, as JSON texts. */
export async function bulkImportErrors(db: Executor, jobId: string): Promise<string[]> {
  const rows = await db.selectFrom('bulk_import_errors').select('body').where('job_id', '=', jobId).orderBy(sql`row_number`).execute();
  return rows.map((r) => r.body);
}
