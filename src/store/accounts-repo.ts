// Written once per engine: lockAccounts, holdIfAvailable, appendEntriesToAccounts.
import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import { sql } from 'kysely';
import { rowsRelation, type ColumnType } from './bulk.js';
import { appendPlatformEntries } from './platform-accounts-repo.js';
import type { Executor } from './store.js';
import type { InternalAccountRow, LedgerEntryRow, PlatformInternalAccountRow } from './tables/internal-accounts.js';
import type { UnitOfWork } from './unit-of-work.js';

export interface AccountFilter {
  customerId?: string | undefined;
  currency?: string | undefined;
  type?: string | undefined;
}

/** Inserts the account unless the customer already has one of that type and currency; placed on the accounts list at commit (see insertListed). */
export async function insertAccountIfAbsent(uow: UnitOfWork, row: InternalAccountRow): Promise<void> {
  await insertListed(uow, 'internal_accounts', row, (db, r) =>
    db
      .insertInto('internal_accounts')
      .values(r)
      .onConflict((oc) => oc.columns(['customer_id', 'type', 'currency']).doNothing())
      .execute(),
  );
}

/** insertAccountIfAbsent for many rows, a statement per 1,000 (under SQLite's limit on bound parameters). */
export async function insertAccountsIfAbsent(uow: UnitOfWork, rows: readonly InternalAccountRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000).map((r) => ({ ...r, list_position: r.created_at }));
    await uow.db
      .insertInto('internal_accounts')
      .values(chunk)
      .onConflict((oc) => oc.columns(['customer_id', 'type', 'currency']).doNothing())
      .execute();
  }
  for (const r of rows) uow.listAtCommit(r.platform_id, 'internal_accounts', r.id);
}

export async function findAccountOf(db: Executor, customerId: string, type: string, currency: string): Promise<InternalAccountRow | undefined> {
  return db
    .selectFrom('internal_accounts')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('type', '=', type)
    .where('currency', '=', currency)
    .executeTakeFirst();
}

/** An account of this platform; another platform's account is not found. */
export async function findAccount(db: Executor, platformId: string, id: string): Promise<InternalAccountRow | undefined> {
  return db.selectFrom('internal_accounts').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

/**
 * Reads the accounts among `ids` in one statement and, on PostgreSQL, locks their rows until the
 * caller's transaction ends (SQLite's transactions are serialized already). Rows are locked in id
 * order, so two transactions locking overlapping sets cannot deadlock on them. The caller checks
 * each one's platform and owner.
 */
export async function lockAccounts(uow: UnitOfWork, ids: readonly string[]): Promise<InternalAccountRow[]> {
  if (ids.length === 0) return [];
  let q = uow.db.selectFrom('internal_accounts').selectAll().where('id', 'in', ids).orderBy('id');
  if (uow.engine === 'postgres') q = q.modifyEnd(sql`for no key update`);
  return q.execute();
}

export async function listAccounts(db: Executor, platformId: string, q: PageQuery, filter: AccountFilter): Promise<{ rows: InternalAccountRow[]; total: number }> {
  let base = db.selectFrom('internal_accounts').where('platform_id', '=', platformId);
  if (filter.customerId !== undefined) base = base.where('customer_id', '=', filter.customerId);
  if (filter.currency !== undefined) base = base.where('currency', '=', filter.currency);
  if (filter.type !== undefined) base = base.where('type', '=', filter.type);
  return keysetPage<InternalAccountRow, Database, 'internal_accounts'>(base, q);
}

/**
 * Appends entries to one account and moves its balances by their sums, in the caller's
 * transaction; the update locks the account row until it ends. Returns the account after.
 */
export async function appendEntries(
  db: Executor,
  accountId: string,
  entries: LedgerEntryRow[],
  delta: { available: number; total: number },
  now: number,
): Promise<InternalAccountRow> {
  const account = await db
    .updateTable('internal_accounts')
    .set((eb) => ({
      available_balance: eb('available_balance', '+', delta.available),
      total_balance: eb('total_balance', '+', delta.total),
      updated_at: now,
    }))
    .where('id', '=', accountId)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (entries.length > 0) await db.insertInto('ledger_entries').values(entries).execute();
  return account;
}

/**
 * Holds on the account of `entry` (a customer's in internal_accounts, or one of the platform's own
 * in platform_internal_accounts) the entry's amount, negative, if its available balance covers it:
 * one conditional UPDATE ... RETURNING, which takes the row's lock as it decides, with the entry
 * inserted in the same statement on PostgreSQL (a data-modifying WITH), in a second one on SQLite.
 * Answers the account after, or undefined when its balance does not cover it (nothing written).
 * Instead of lock, read, update, insert: each a round trip on PostgreSQL, all under the row lock.
 */
export async function holdIfAvailable(
  uow: UnitOfWork,
  table: 'internal_accounts' | 'platform_internal_accounts',
  entry: LedgerEntryRow,
  now: number,
): Promise<InternalAccountRow | PlatformInternalAccountRow | undefined> {
  const amount = -entry.amount;
  if (amount < 0) throw new Error(`a hold's entry is negative, not ${entry.amount}`);
  if (uow.engine === 'postgres') {
    const { rows } = await sql<InternalAccountRow>`${holdWith(table, entry, amount, now)} select * from h`.execute(uow.db);
    return rows[0];
  }
  const account = await uow.db
    .updateTable(table as 'internal_accounts')
    .set((eb) => ({ available_balance: eb('available_balance', '-', amount), updated_at: now }))
    .where('id', '=', entry.account_id)
    .where('available_balance', '>=', amount)
    .returningAll()
    .executeTakeFirst();
  if (account) await uow.db.insertInto('ledger_entries').values(entry).execute();
  return account;
}

/** The code of a hold written at commit that the account's available balance did not cover (see holdAtCommit). */
export const HOLD_REFUSED = 'GH001';

/**
 * holdIfAvailable as the unit of work's last write: on PostgreSQL a deferred write
 * (UnitOfWork.write) that goes out with COMMIT, so the account's row lock is taken and released
 * within that one round trip. When the available balance does not cover the hold, it raises
 * HOLD_REFUSED (payments_refuse_hold, migration 030): the commit fails and nothing of the unit of
 * work is written. SQLite (no round trips) holds at once, and throws HOLD_REFUSED then, which
 * rolls its unit of work back alike. Whatever follows it in the unit of work sees the account
 * after the hold.
 */
export async function holdAtCommit(uow: UnitOfWork, table: 'internal_accounts' | 'platform_internal_accounts', entry: LedgerEntryRow, now: number): Promise<void> {
  if (uow.engine !== 'postgres') {
    if (!(await holdIfAvailable(uow, table, entry, now))) throw Object.assign(new Error(`the available balance of ${entry.account_id} does not cover the hold`), { code: HOLD_REFUSED });
    return;
  }
  const amount = -entry.amount;
  if (amount < 0) throw new Error(`a hold's entry is negative, not ${entry.amount}`);
  await uow.write(sql`${holdWith(table, entry, amount, now)} select case when exists (select 1 from h) then 0 else payments_refuse_hold(${entry.account_id}::text) end`);
}

/** PostgreSQL: the conditional UPDATE of a hold (`h`, the account after, or no row) and its entry's insert (`e`), as a WITH for the statement that follows. */
function holdWith(table: 'internal_accounts' | 'platform_internal_accounts', entry: LedgerEntryRow, amount: number, now: number) {
  return sql`with h as (
      update ${sql.table(table)} set available_balance = available_balance - ${amount}::bigint, updated_at = ${now}::bigint
      where id = ${entry.account_id} and available_balance >= ${amount}::bigint returning *),
    e as (insert into ledger_entries (id, platform_id, account_id, kind, amount, card_transaction_id, card_operation_id, payment_transaction_id, created_at)
      select ${entry.id}::text, ${entry.platform_id}::text, h.id, ${entry.kind}::text, ${entry.amount}::bigint, ${entry.card_transaction_id}::text, ${entry.card_operation_id}::text, ${entry.payment_transaction_id ?? null}::text, ${entry.created_at}::bigint from h)`;
}

const ENTRY_COLUMNS: Record<keyof LedgerEntryRow, ColumnType> = {
  id: 'text',
  platform_id: 'text',
  account_id: 'text',
  kind: 'text',
  amount: 'bigint',
  card_transaction_id: 'text',
  card_operation_id: 'text',
  payment_transaction_id: 'text',
  created_at: 'bigint',
};

/**
 * appendEntries for many accounts of one table (customers' internal_accounts, or the platform's
 * own): each account's balances moved by its delta and every entry inserted. PostgreSQL: one
 * statement whatever their number (an UPDATE ... FROM the deltas, the insert in a data-modifying
 * WITH): a landing holds the accounts' row locks from this statement to its commit, and each
 * statement is a round trip. SQLite: appendEntries per account (no round trips to save). Answers
 * the accounts after, in no particular order.
 */
export async function appendEntriesToAccounts(
  uow: UnitOfWork,
  table: 'internal_accounts' | 'platform_internal_accounts',
  accounts: readonly AccountEntries[],
  now: number,
): Promise<(InternalAccountRow | PlatformInternalAccountRow)[]> {
  if (accounts.length === 0) return [];
  if (uow.engine !== 'postgres') {
    const after: (InternalAccountRow | PlatformInternalAccountRow)[] = [];
    for (const a of accounts) {
      after.push(table === 'internal_accounts' ? await appendEntries(uow.db, a.id, a.entries, a.delta, now) : await appendPlatformEntries(uow.db, a.id, a.entries, a.delta, now));
    }
    return after;
  }
  const { rows } = await appendStatement(table, accounts, now, true).execute(uow.db);
  return rows;
}

/**
 * PostgreSQL: appendEntriesToAccounts on customers' accounts as a deferred write (UnitOfWork.write)
 * that goes out with COMMIT, answering nothing: the accounts' row locks are then taken and released
 * in the unit of work's last round trip. Its caller learns the balances after only as later
 * statements of that round trip read them (BalancePlaceholders). False on SQLite, nothing written.
 */
export async function appendEntriesAtCommit(uow: UnitOfWork, accounts: readonly AccountEntries[], now: number): Promise<boolean> {
  if (uow.engine !== 'postgres') return false;
  if (accounts.length > 0) await uow.write(appendStatement('internal_accounts', accounts, now, false));
  return true;
}

/**
 * appendEntriesToAccounts on customers' accounts that this transaction has locked and read
 * (`locked`: lockAccounts's rows, not written since). Their balances after are those rows moved
 * by the deltas, so nobody needs the statement's answer: on PostgreSQL it is a deferred write
 * (UnitOfWork.write) and goes out with COMMIT. A landing then holds its funding account's lock for
 * one round trip after locking it (the rest with COMMIT) instead of two (the postings, then the
 * rest): each round trip waits its turn on the server's busy event loop while every other landing
 * on the account waits for the lock. Any account not among `locked`: appendEntriesToAccounts.
 */
export async function appendEntriesToLockedAccounts(
  uow: UnitOfWork,
  accounts: readonly AccountEntries[],
  locked: ReadonlyMap<string, InternalAccountRow>,
  now: number,
): Promise<InternalAccountRow[]> {
  if (uow.engine !== 'postgres' || accounts.length === 0 || accounts.some((a) => !locked.has(a.id))) {
    return (await appendEntriesToAccounts(uow, 'internal_accounts', accounts, now)) as InternalAccountRow[];
  }
  await appendEntriesAtCommit(uow, accounts, now);
  return accounts.map((a) => {
    const row = locked.get(a.id)!;
    return { ...row, available_balance: Number(row.available_balance) + a.delta.available, total_balance: Number(row.total_balance) + a.delta.total, updated_at: now };
  });
}

/** What appendEntriesToAccounts writes to one account. */
export interface AccountEntries {
  id: string;
  entries: LedgerEntryRow[];
  delta: { available: number; total: number };
}

/** PostgreSQL's statement for appendEntriesToAccounts: the entries inserted (a data-modifying WITH), the balances moved, the accounts after returned if `returning`. */
function appendStatement(table: 'internal_accounts' | 'platform_internal_accounts', accounts: readonly AccountEntries[], now: number, returning: boolean) {
  const entries = accounts.flatMap((a) => a.entries);
  const columns = sql.join(Object.keys(ENTRY_COLUMNS).map((c) => sql.ref(c)));
  const insert = entries.length === 0 ? sql`` : sql`with e as (insert into ledger_entries (${columns}) select ${columns} from ${rowsRelation(ENTRY_COLUMNS, entries as unknown as Record<string, unknown>[])}) `;
  const deltas = rowsRelation({ id: 'text', available: 'bigint', total: 'bigint' }, accounts.map((a) => ({ id: a.id, available: a.delta.available, total: a.delta.total })));
  return sql<InternalAccountRow>`${insert}update ${sql.table(table)} as t
    set available_balance = t.available_balance + v.available, total_balance = t.total_balance + v.total, updated_at = ${now}::bigint
    from ${deltas} where t.id = v.id${returning ? sql` returning t.*` : sql``}`;
}

export async function entriesOf(db: Executor, accountId: string): Promise<LedgerEntryRow[]> {
  return db.selectFrom('ledger_entries').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
}
