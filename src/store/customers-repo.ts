import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import type { PageQuery } from './page.js';
import type { Executor } from './store.js';
import type { CustomerRow, CustomerType } from './tables/customers.js';

export interface CustomerFilter {
  platformCustomerId?: string | undefined;
  customerType?: CustomerType | undefined;
}

export async function insertCustomer(db: Executor, row: CustomerRow): Promise<void> {
  await db.insertInto('customers').values(row).execute();
}

/** Many customers in one statement; the caller chooses the batch size and the transaction. */
export async function insertCustomers(db: Executor, rows: CustomerRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('customers').values(rows).execute();
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
 * Counts one more owner on a business customer of this platform, inside the caller's transaction.
 * False when there is no such business customer (nothing is changed then).
 */
export async function countNewOwner(trx: Executor, platformId: string, customerId: string): Promise<boolean> {
  const r = await trx
    .updateTable('customers')
    .set((eb) => ({ owner_count: eb('owner_count', '+', 1) }))
    .where('id', '=', customerId)
    .where('platform_id', '=', platformId)
    .where('customer_type', '=', 'BUSINESS')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
