import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Executor } from './store.js';
import type { ExternalAccountRow } from './tables/external-accounts.js';
import type { UnitOfWork } from './unit-of-work.js';

/** Whose accounts a read reaches: one customer's, any customer's, the platform's own, or any of them. */
export type ExternalAccountOwner = { customerId: string } | 'any-customer' | 'platform' | 'anyone';

/** Inserts an account, placed on the platform's list when the unit of work commits. */
export async function insertExternalAccount(uow: UnitOfWork, row: ExternalAccountRow): Promise<void> {
  await insertListed(uow, 'external_accounts', row, (db, r) => db.insertInto('external_accounts').values(r).execute());
}

function owned(db: Executor, platformId: string, owner: ExternalAccountOwner) {
  const base = db.selectFrom('external_accounts').where('platform_id', '=', platformId).where('deleted_at', 'is', null);
  if (owner === 'anyone') return base;
  if (owner === 'platform') return base.where('customer_id', 'is', null);
  if (owner === 'any-customer') return base.where('customer_id', 'is not', null);
  return base.where('customer_id', '=', owner.customerId);
}

/** A live (not deleted) account of this platform and owner; another platform's, owner's or a deleted one is not found. */
export async function findExternalAccount(db: Executor, platformId: string, id: string, owner: ExternalAccountOwner = 'any-customer'): Promise<ExternalAccountRow | undefined> {
  return externalAccountQuery(db, platformId, id, owner).executeTakeFirst();
}

/** findExternalAccount's query, for a statement that reads it with others (see readTransferParties). */
export function externalAccountQuery(db: Executor, platformId: string, id: string, owner: ExternalAccountOwner) {
  return owned(db, platformId, owner).selectAll().where('id', '=', id);
}

/** findExternalAccount whatever its owner, in a unit of work: what a transfer reads. */
export async function getExternalAccount(uow: UnitOfWork, platformId: string, id: string): Promise<ExternalAccountRow | undefined> {
  return findExternalAccount(uow.db, platformId, id, 'anyone');
}

/** findExternalAccount, its row locked until the unit of work ends on PostgreSQL (SQLite serializes writers already). */
export async function lockExternalAccount(uow: UnitOfWork, platformId: string, id: string, owner: ExternalAccountOwner = 'any-customer'): Promise<ExternalAccountRow | undefined> {
  const q = owned(uow.db, platformId, owner).selectAll().where('id', '=', id);
  return (uow.engine === 'postgres' ? q.forNoKeyUpdate() : q).executeTakeFirst();
}

/**
 * On PostgreSQL, locks the owner's row (the customer's, or the platform's for its own accounts)
 * until the unit of work ends, so two creations for one owner check for a duplicate one after the
 * other (SQLite serializes writers already).
 */
export async function lockOwner(uow: UnitOfWork, platformId: string, customerId: string | undefined): Promise<void> {
  if (uow.engine !== 'postgres') return;
  if (customerId === undefined) await uow.db.selectFrom('platforms').select('id').where('id', '=', platformId).forNoKeyUpdate().execute();
  else await uow.db.selectFrom('customers').select('id').where('id', '=', customerId).where('platform_id', '=', platformId).forNoKeyUpdate().execute();
}

/** A live account of the owner with this type and primary identifier: the one a new account would duplicate. */
export async function findDuplicate(db: Executor, platformId: string, owner: ExternalAccountOwner, accountType: string, identifier: string): Promise<ExternalAccountRow | undefined> {
  return owned(db, platformId, owner).selectAll().where('account_type', '=', accountType).where('identifier', '=', identifier).executeTakeFirst();
}

export async function updateExternalAccount(
  db: Executor,
  id: string,
  patch: Partial<Pick<ExternalAccountRow, 'status' | 'beneficiary_verification_status' | 'beneficiary_verified_name' | 'ownership_challenge' | 'default_uma_deposit_account' | 'deleted_at' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('external_accounts').set(patch).where('id', '=', id).execute();
}

/** Clears the default UMA deposit account flag on the customer's other accounts (at most one has it). */
export async function clearDefaultUmaDeposit(db: Executor, platformId: string, customerId: string, now: number): Promise<void> {
  await db
    .updateTable('external_accounts')
    .set({ default_uma_deposit_account: 0, updated_at: now })
    .where('platform_id', '=', platformId)
    .where('customer_id', '=', customerId)
    .where('default_uma_deposit_account', '=', 1)
    .execute();
}

export interface ExternalAccountFilters {
  currency?: string | undefined;
}

export async function listExternalAccounts(db: Executor, platformId: string, owner: ExternalAccountOwner, q: PageQuery, f: ExternalAccountFilters): Promise<{ rows: ExternalAccountRow[]; total: number }> {
  let base = owned(db, platformId, owner);
  if (f.currency !== undefined) base = base.where('currency', '=', f.currency);
  return keysetPage<ExternalAccountRow, Database, 'external_accounts'>(base, q);
}
