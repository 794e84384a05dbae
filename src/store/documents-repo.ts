import { keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Executor } from './store.js';
import type { DocumentFileRow, DocumentRow } from './tables/documents.js';
import type { UnitOfWork } from './unit-of-work.js';

/** A document and its bytes, placed on the documents list when the unit of work commits. */
export async function insertDocument(uow: UnitOfWork, row: DocumentRow, file: Omit<DocumentFileRow, 'document_id'>): Promise<void> {
  await insertListed(uow, 'documents', row, (db, r) => db.insertInto('documents').values(r).execute());
  await uow.db.insertInto('document_files').values({ document_id: row.id, ...file }).execute();
}

/** A document of this platform scope; another scope's is not found. Never reads the bytes. */
export async function findDocument(db: Executor, platformId: string, id: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

/** Replaces a document's metadata and bytes; false when it is not this platform's. */
export async function replaceDocument(uow: UnitOfWork, platformId: string, id: string, changes: Pick<DocumentRow, 'document_type' | 'body' | 'updated_at'>, file: Omit<DocumentFileRow, 'document_id'>): Promise<boolean> {
  const res = await uow.db.updateTable('documents').set(changes).where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return false;
  await uow.db.updateTable('document_files').set(file).where('document_id', '=', id).execute();
  return true;
}

/**
 * Deletes a document and its bytes; false when it is not this platform's. The document's row goes
 * first, as a replacement updates it first: on PostgreSQL the opposite order deadlocked against a
 * concurrent PUT (the hostile sweep found it).
 */
export async function deleteDocument(uow: UnitOfWork, platformId: string, id: string): Promise<boolean> {
  const res = await uow.db.deleteFrom('documents').where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) return false;
  await uow.db.deleteFrom('document_files').where('document_id', '=', id).execute();
  return true;
}

/** A document's bytes, for this platform scope only. */
export async function findDocumentFile(db: Executor, platformId: string, id: string): Promise<DocumentFileRow | undefined> {
  return db
    .selectFrom('document_files')
    .innerJoin('documents', 'documents.id', 'document_files.document_id')
    .select(['document_files.document_id', 'document_files.content_type', 'document_files.bytes'])
    .where('documents.id', '=', id)
    .where('documents.platform_id', '=', platformId)
    .executeTakeFirst();
}

export async function listDocuments(db: Executor, platformId: string, q: PageQuery, holderId: string | undefined): Promise<{ rows: DocumentRow[]; total: number }> {
  let filtered = db.selectFrom('documents').where('platform_id', '=', platformId);
  if (holderId !== undefined) filtered = filtered.where('holder_id', '=', holderId);
  return keysetPage<DocumentRow, any, 'documents'>(filtered as never, q);
}

/** The distinct document types on file for a holder of this platform scope. */
export async function documentTypesOf(db: Executor, platformId: string, holderId: string): Promise<string[]> {
  const rows = await db.selectFrom('documents').select('document_type').distinct().where('platform_id', '=', platformId).where('holder_id', '=', holderId).execute();
  return rows.map((r) => r.document_type).sort();
}
