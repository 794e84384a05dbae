import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Executor } from './store.js';
import type { VerificationRow } from './tables/verifications.js';
import type { UnitOfWork } from './unit-of-work.js';

export interface VerificationFilter {
  customerId?: string | undefined;
  status?: string | undefined;
}

export async function insertVerification(uow: UnitOfWork, row: VerificationRow): Promise<void> {
  await insertListed(uow, 'verifications', row, (db, r) => db.insertInto('verifications').values(r).execute());
}

export async function findVerification(db: Executor, platformId: string, id: string): Promise<VerificationRow | undefined> {
  return db.selectFrom('verifications').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

export async function listVerifications(db: Executor, platformId: string, q: PageQuery, filter: VerificationFilter): Promise<{ rows: VerificationRow[]; total: number }> {
  let base = db.selectFrom('verifications').where('platform_id', '=', platformId);
  if (filter.customerId !== undefined) base = base.where('customer_id', '=', filter.customerId);
  if (filter.status !== undefined) base = base.where('status', '=', filter.status);
  return keysetPage<VerificationRow, Database, 'verifications'>(base, q);
}
