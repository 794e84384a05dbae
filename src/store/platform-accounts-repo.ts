import type { Executor } from './store.js';
import type { PlatformInternalAccountRow } from './tables/internal-accounts.js';

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
