import { sql } from 'kysely';
import type { Executor } from './store.js';
import type { UnitOfWork } from './unit-of-work.js';
import type { LedgerEntryRow, PlatformInternalAccountRow } from './tables/internal-accounts.js';

/** Inserts the rows the platform lacks; the unique (platform, type, currency) makes concurrent callers agree. */
export async function insertPlatformAccountsIfAbsent(db: Executor, rows: readonly PlatformInternalAccountRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('platform_internal_accounts')
    .values([...rows])
    .onConflict((oc) => oc.columns(['platform_id', 'type', 'currency']).doNothing())
    .execute();
}

export async function listPlatformAccounts(db: Executor, platformId: string, filter: { currency?: string | undefined; type?: string | undefined }): Promise<PlatformInternalAccountRow[]> {
  let q = db.selectFrom('platform_internal_accounts').selectAll().where('platform_id', '=', platformId);
  if (filter.currency !== undefined) q = q.where('currency', '=', filter.currency);
  if (filter.type !== undefined) q = q.where('type', '=', filter.type);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** One of this platform's own accounts; another platform's is not found. */
export async function findPlatformAccount(db: Executor, platformId: string, id: string): Promise<PlatformInternalAccountRow | undefined> {
  return db.selectFrom('platform_internal_accounts').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

/** findPlatformAccount, its row locked until the unit of work ends on PostgreSQL (SQLite serializes writers already). */
export async function lockPlatformAccount(uow: UnitOfWork, platformId: string, id: string): Promise<PlatformInternalAccountRow | undefined> {
  let q = uow.db.selectFrom('platform_internal_accounts').selectAll().where('id', '=', id).where('platform_id', '=', platformId);
  if (uow.engine === 'postgres') q = q.modifyEnd(sql`for no key update`);
  return q.executeTakeFirst();
}

/** lockPlatformAccount for many, in one statement and id order, whatever their platform (the caller checks). */
export async function lockPlatformAccounts(uow: UnitOfWork, ids: readonly string[]): Promise<PlatformInternalAccountRow[]> {
  if (ids.length === 0) return [];
  let q = uow.db.selectFrom('platform_internal_accounts').selectAll().where('id', 'in', ids).orderBy('id');
  if (uow.engine === 'postgres') q = q.modifyEnd(sql`for no key update`);
  return q.execute();
}

/** Appends entries to a platform account and moves its balances by their sums, in the caller's transaction (the update locks the row). */
export async function appendPlatformEntries(
  db: Executor,
  accountId: string,
  entries: readonly LedgerEntryRow[],
  delta: { available: number; total: number },
  now: number,
): Promise<PlatformInternalAccountRow> {
  const account = await db
    .updateTable('platform_internal_accounts')
    .set((eb) => ({ available_balance: eb('available_balance', '+', delta.available), total_balance: eb('total_balance', '+', delta.total), updated_at: now }))
    .where('id', '=', accountId)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (entries.length > 0) await db.insertInto('ledger_entries').values([...entries]).execute();
  return account;
}
