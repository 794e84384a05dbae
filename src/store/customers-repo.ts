import type { Executor } from './db.js';
import type { CustomerRow } from './tables/customers.js';

export async function insertCustomer(db: Executor, row: CustomerRow): Promise<void> {
  await db.insertInto('customers').values(row).execute();
}

/** A customer of this platform; another platform's customer is not found. */
export async function findCustomer(db: Executor, platformId: string, id: string): Promise<CustomerRow | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}
