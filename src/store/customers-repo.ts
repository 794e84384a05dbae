// Written once per engine: lockCustomer, activeHolders.
import { sql } from 'kysely';
import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Executor, Queryable } from './store.js';
import type { CustomerRow, CustomerType } from './tables/customers.js';
import type { UnitOfWork } from './unit-of-work.js';

export interface CustomerFilter {
  platformCustomerId?: string | undefined;
  customerType?: CustomerType | undefined;
  /** Epoch milliseconds, inclusive bounds. */
  createdAfter?: number | undefined;
  createdBefore?: number | undefined;
  updatedAfter?: number | undefined;
  updatedBefore?: number | undefined;
  region?: string | undefined;
  /** A currency code ([A-Z0-9]) the customer's currencies include. */
  currency?: string | undefined;
  umaAddress?: string | undefined;
  includeDeleted?: boolean | undefined;
}

/** Which uniqueness rule of the active customers a write broke. */
export type CustomerClash = 'platformCustomerId' | 'umaAddress';

/**
 * Inserts a customer unless an active one of the platform already has its platformCustomerId or
 * UMA address (the unique indexes decide, so concurrent inserts cannot both win), placed on the
 * customers list when the unit of work commits (see insertListed). ON CONFLICT DO NOTHING keeps
 * the unit of work usable on PostgreSQL; the clash is then named by a read.
 */
export async function insertCustomer(uow: UnitOfWork, row: CustomerRow): Promise<CustomerClash | undefined> {
  let inserted = false;
  await insertListed(uow, 'customers', row, async (db, r) => {
    const res = await db.insertInto('customers').values(r).onConflict((oc) => oc.doNothing()).executeTakeFirst();
    inserted = Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  });
  if (inserted) return undefined;
  return (await activeClash(uow.db, row.platform_id, row.id, { platformCustomerId: row.platform_customer_id })) ?? 'umaAddress';
}

/** Rows per statement of the set-based writes: under both engines' limits on bound parameters (SQLite's 32,766). */
const ROWS_PER_STATEMENT = 1000;

/**
 * insertCustomer for many rows, a statement per ROWS_PER_STATEMENT: a row whose platformCustomerId
 * or UMA address an active customer holds (one written earlier in the same call included) is
 * skipped by the unique indexes, as insertCustomer's is. Answers the ids inserted; each is put on
 * the customers list when the unit of work commits.
 */
export async function insertCustomersIfFree(uow: UnitOfWork, rows: readonly CustomerRow[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => ({ ...r, list_position: r.created_at }));
    const ids = await uow.db.insertInto('customers').values(chunk).onConflict((oc) => oc.doNothing()).returning('id').execute();
    for (const { id } of ids) inserted.add(id);
  }
  for (const r of rows) if (inserted.has(r.id)) uow.listAtCommit(r.platform_id, 'customers', r.id);
  return inserted;
}

/**
 * Which of these platformCustomerIds and UMA addresses (lower case) active customers of the
 * platform hold, in one statement: the uniqueness rules of insertCustomer, asked for a whole batch.
 * Two lookups joined by UNION ALL, each on its own index (an OR of the two lists scans the
 * platform's customers on SQLite); on PostgreSQL each list is one array parameter, so the
 * statement's text, prepared once, is the same whatever the lists' lengths.
 */
export async function activeHolders(on: Queryable, platformId: string, values: { platformCustomerIds: readonly string[]; umaAddresses: readonly string[] }): Promise<{ platformCustomerIds: Set<string>; umaAddresses: Set<string> }> {
  const held = { platformCustomerIds: new Set<string>(), umaAddresses: new Set<string>() };
  const { platformCustomerIds: ids, umaAddresses: umas } = values;
  if (ids.length === 0 && umas.length === 0) return held;
  const postgres = on.engine === 'postgres';
  const lookup = (column: 'platform_customer_id' | 'uma_address', list: readonly string[]) =>
    on.db
      .selectFrom('customers')
      .select(['platform_customer_id', 'uma_address', sql<number>`legacy_duplicate`.as('legacy_duplicate')])
      .where('platform_id', '=', platformId)
      .where('is_deleted', '=', 0)
      .where(postgres ? sql<boolean>`${sql.ref(column)} = any(${[...list]}::text[])` : sql<boolean>`${sql.ref(column)} in (${sql.join([...list])})`);
  const byId = postgres || ids.length > 0 ? lookup('platform_customer_id', ids) : undefined;
  const byUma = postgres || umas.length > 0 ? lookup('uma_address', umas) : undefined;
  const rows = await (byId && byUma ? byId.unionAll(byUma) : (byId ?? byUma)!).execute();
  const wantedIds = new Set(ids);
  const wantedUmas = new Set(umas);
  for (const r of rows) {
    // A legacy duplicate (migration 008) holds no platformCustomerId: the unique index leaves it out.
    if (Number(r.legacy_duplicate) === 0 && wantedIds.has(r.platform_customer_id)) held.platformCustomerIds.add(r.platform_customer_id);
    if (wantedUmas.has(r.uma_address)) held.umaAddresses.add(r.uma_address);
  }
  return held;
}

/**
 * Many customers in one statement; the caller chooses the batch size and the transaction. Their
 * list position is their creation time: for bulk loads (seeding), not for concurrent writers.
 */
export async function insertCustomers(db: Executor, rows: CustomerRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('customers').values(rows.map((r) => ({ ...r, list_position: r.created_at }))).execute();
}

/** A customer of this platform, deleted or not; another platform's customer is not found. */
export async function findCustomer(db: Executor, platformId: string, id: string): Promise<CustomerRow | undefined> {
  return customerOf(db, platformId, id).executeTakeFirst();
}

const customerOf = (db: Executor, platformId: string, id: string) => db.selectFrom('customers').selectAll().where('id', '=', id).where('platform_id', '=', platformId);

/** findCustomer, to decide a change of the customer: on PostgreSQL its row stays locked until the unit of work ends (SQLite's transactions are serialized already). */
export async function lockCustomer(uow: UnitOfWork, platformId: string, id: string): Promise<CustomerRow | undefined> {
  const q = customerOf(uow.db, platformId, id);
  return (uow.engine === 'postgres' ? q.forNoKeyUpdate() : q).executeTakeFirst();
}

/** Which of the given values another active customer of the platform already holds. */
export async function activeClash(db: Executor, platformId: string, exceptId: string, values: { platformCustomerId?: string; umaAddress?: string }): Promise<CustomerClash | undefined> {
  const holder = (column: 'platform_customer_id' | 'uma_address', value: string) =>
    db
      .selectFrom('customers')
      .select('id')
      .where('platform_id', '=', platformId)
      .where(column, '=', value)
      .where('is_deleted', '=', 0)
      .where('id', '!=', exceptId)
      .$if(column === 'platform_customer_id', (q) => q.where(sql.ref('legacy_duplicate'), '=', 0))
      .executeTakeFirst();
  if (values.platformCustomerId !== undefined && (await holder('platform_customer_id', values.platformCustomerId))) return 'platformCustomerId';
  if (values.umaAddress !== undefined && (await holder('uma_address', values.umaAddress))) return 'umaAddress';
  return undefined;
}

/** The unique index a failed write broke, if that is why it failed (SQLite names the columns, PostgreSQL the index). */
export function customerClashOf(err: unknown): CustomerClash | undefined {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') return e.constraint === 'customers_active_uma_address' ? 'umaAddress' : e.constraint === 'customers_active_platform_customer_id' ? 'platformCustomerId' : undefined;
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE') return e.message?.includes('customers.uma_address') ? 'umaAddress' : e.message?.includes('customers.platform_customer_id') ? 'platformCustomerId' : undefined;
  return undefined;
}

export async function updateCustomer(db: Executor, platformId: string, id: string, changes: Pick<CustomerRow, 'data' | 'uma_address' | 'region' | 'currency_list' | 'updated_at'>): Promise<void> {
  await db.updateTable('customers').set(changes).where('id', '=', id).where('platform_id', '=', platformId).execute();
}

export async function markCustomerDeleted(db: Executor, platformId: string, id: string, now: number): Promise<void> {
  await db.updateTable('customers').set({ is_deleted: 1, updated_at: now }).where('id', '=', id).where('platform_id', '=', platformId).execute();
}

export async function listCustomers(db: Executor, platformId: string, q: PageQuery, filter: CustomerFilter): Promise<{ rows: CustomerRow[]; total: number }> {
  let base = db.selectFrom('customers').where('platform_id', '=', platformId);
  if (filter.platformCustomerId !== undefined) base = base.where('platform_customer_id', '=', filter.platformCustomerId);
  if (filter.customerType !== undefined) base = base.where('customer_type', '=', filter.customerType);
  if (filter.createdAfter !== undefined) base = base.where('created_at', '>=', filter.createdAfter);
  if (filter.createdBefore !== undefined) base = base.where('created_at', '<=', filter.createdBefore);
  if (filter.updatedAfter !== undefined) base = base.where('updated_at', '>=', filter.updatedAfter);
  if (filter.updatedBefore !== undefined) base = base.where('updated_at', '<=', filter.updatedBefore);
  if (filter.region !== undefined) base = base.where('region', '=', filter.region);
  if (filter.currency !== undefined) base = base.where('currency_list', 'like', `%,${filter.currency},%`);
  if (filter.umaAddress !== undefined) base = base.where('uma_address', '=', filter.umaAddress);
  if (!filter.includeDeleted) base = base.where('is_deleted', '=', 0);
  return keysetPage<CustomerRow, Database, 'customers'>(base, q);
}

/**
 * Counts one more owner on an active business customer of this platform, inside the caller's
 * transaction, and stamps the new owner's creation time: `now`, or one past the customer's last
 * owner's when that is not earlier. The stamp is taken under the customer row's lock, held until
 * the caller's transaction ends, so a customer's owners become visible in the order of their
 * creation time and a client following the owner list's `nextCursor` never passes an owner that
 * commits later. Undefined when there is no such customer (nothing is changed then).
 */
export async function countNewOwner(trx: Executor, platformId: string, customerId: string, now: number): Promise<number | undefined> {
  const r = await trx
    .updateTable('customers')
    .set((eb) => ({
      owner_count: eb('owner_count', '+', 1),
      owners_version: eb('owners_version', '+', 1),
      owner_clock: sql<number>`case when owner_clock >= ${now} then owner_clock + 1 else ${now} end`,
    }))
    .where('id', '=', customerId)
    .where('platform_id', '=', platformId)
    .where('customer_type', '=', 'BUSINESS')
    .where('is_deleted', '=', 0)
    .returning('owner_clock')
    .executeTakeFirst();
  return r === undefined ? undefined : Number(r.owner_clock);
}

/** Sets a customer's KYC (or KYB) status; answers the row after, or undefined for an unknown or foreign customer. */
export async function setKycStatus(db: Executor, platformId: string, id: string, status: string, now: number): Promise<CustomerRow | undefined> {
  return db
    .updateTable('customers')
    .set({ kyc_status: status, updated_at: now })
    .where('id', '=', id)
    .where('platform_id', '=', platformId)
    .returningAll()
    .executeTakeFirst();
}
