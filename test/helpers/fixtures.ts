import { newId } from '../../src/domain/ids.js';
import { insertCustomer } from '../../src/store/customers-repo.js';
import type { CustomerType } from '../../src/store/tables/customers.js';
import type { Caller, TestApp } from './test-app.js';

/** Inserts a customer straight through the store, for tests of features that only need one to exist. */
export async function insertTestCustomer(t: TestApp, caller: Caller, type: CustomerType = 'BUSINESS'): Promise<string> {
  const id = newId('Customer');
  const now = Date.now();
  await insertCustomer(t.services.store.db, {
    id,
    platform_id: caller.platformId,
    customer_type: type,
    platform_customer_id: `ext-${id.slice(-12)}`,
    kyc_status: 'UNVERIFIED',
    data: '{}',
    owner_count: 0,
    uma_address: `$t${id.slice(-12)}@test.invalid`,
    is_deleted: 0,
    region: null,
    currency_list: '',
    created_at: now,
    updated_at: now,
  });
  return id;
}
