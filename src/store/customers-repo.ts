import { sql } from 'kysely';
import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Executor } from './store.js';
import type { CustomerRow, CustomerType } from './tables/customers.js';

export interface CustomerFilter {
  platformCustomerId?: string | undefined;
  customerType?: CustomerType | undefined;
}

/** Inserts a customer, placed on the customers list when the transaction commits (see insertListed). */
export async function insertCustomer(db: Executor, row: CustomerRow): Promise<void> {
  await insertListed(db, 'customers', row, (trx, r) => trx.insertInto('customers').values(r).execute());
}

/**
 * Many customers in one statement; the caller chooses the batch size and the transaction. Their
 * list position is their creation time: for bulk loads (seeding), not for concurrent writers.
 */
export async function insertCustomers(db: Executor, rows: CustomerRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('customers').values(rows.map((r) => ({ ...r, list_position: r.created_at }))).execute();
}

/** A customer of this platform; another platform's customer is not found. */
export async function findCustomer(db: Executor, platformId: string, id: string): Promise<CustomerRow | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

export async function listCustomers(db: Executor, platformId: string, q: PageQuery, filter: CustomerFilter): Promise<{ rows: CustomerRow[]; total: number }> {
  let base = db.selectFrom('customers').where('platform_id', '=', platformId);
  if (filter.platformCustomerId !== undefined) base = base.where('platform_customer_id', '=', filter.platformCustomerId);
  if (filter.customerType !== undefined) base = base.where('customer_type', '=', filter.customerType);
  return keysetPage<CustomerRow, Database, 'customers'>(base, q);
}

/**
 * Counts one more owner on a business customer of this platform, inside the caller's transaction,
 * and stamps the new owner's creation time: `now`, or one past the customer's last owner's when
 * that is not earlier. The stamp is taken under the customer row's lock, held until the caller's
 * transaction ends, so a customer's owners become visible in the order of their creation time and
 * a client following the owner list's `nextCursor` never passes an owner that commits later.
 * Undefined when there is no such business customer (nothing is changed then).
 */
export async function countNewOwner(trx: Executor, platformId: string, customerId: string, now: number): Promise<number | undefined> {
  const r = await trx
    .updateTable('customers')
    .set((eb) => ({
      owner_count: eb('owner_count', '+', 1),
      owner_clock: sql<number>`case when owner_clock >= ${now} then owner_clock + 1 else ${now} end`,
    }))
    .where('id', '=', customerId)
    .where('platform_id', '=', platformId)
    .where('customer_type', '=', 'BUSINESS')
    .returning('owner_clock')
    .executeTakeFirst();
  return r === undefined ? undefined : Number(r.owner_clock);
}
