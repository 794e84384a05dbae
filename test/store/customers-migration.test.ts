import { Migrator, type Kysely, type Migration } from 'kysely';
import { expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { describeOnNewDatabase } from '../helpers/migrations.js';

/** Migration 008 on a database made before it: customers that shared a platformCustomerId, and list fields only in the JSON. */
describeOnNewDatabase('migration 008, customers as the interface has them', (t) => {
  it('keeps customers that shared a platformCustomerId, assigns UMA addresses, fills the filter columns, then enforces uniqueness', async () => {
    const { store } = t;
    const provider = {
      async getMigrations(): Promise<Record<string, Migration>> {
        return Object.fromEntries(Object.entries(migrations).map(([name, make]) => [name, make(store.engine)]));
      },
    };
    const raw = store.db as unknown as Kysely<any>;
    const before = await new Migrator({ db: raw, provider }).migrateTo('006_platform_config');
    expect(before.error).toBeUndefined();
    await raw.insertInto('platforms').values({ id: 'Platform:p', name: 'p', created_at: 1 }).execute();
    const customer = (id: string, createdAt: number, data: object) => ({
      id,
      platform_id: 'Platform:p',
      customer_type: 'INDIVIDUAL',
      platform_customer_id: 'same',
      kyc_status: 'UNVERIFIED',
      data: JSON.stringify(data),
      owner_count: 0,
      created_at: createdAt,
      updated_at: createdAt,
    });
    await raw
      .insertInto('customers')
      .values([
        customer('Customer:01900000-0000-7000-8000-000000000002', 2, { region: 'MX', currencies: ['MXN', 'USDC'] }),
        customer('Customer:01900000-0000-7000-8000-000000000001', 1, {}),
      ])
      .execute();

    await migrateToLatest(store);
    const rows = await raw.selectFrom('customers').select(['id', 'uma_address', 'legacy_duplicate', 'is_deleted', 'region', 'currency_list']).orderBy('id').execute();
    expect(rows.map((r) => ({ ...r, legacy_duplicate: Number(r.legacy_duplicate), is_deleted: Number(r.is_deleted) }))).toEqual([
      { id: 'Customer:01900000-0000-7000-8000-000000000001', uma_address: '$c01900000000070008000000000000001@sandbox.uma.invalid', legacy_duplicate: 0, is_deleted: 0, region: null, currency_list: '' },
      { id: 'Customer:01900000-0000-7000-8000-000000000002', uma_address: '$c01900000000070008000000000000002@sandbox.uma.invalid', legacy_duplicate: 1, is_deleted: 0, region: 'MX', currency_list: ',MXN,USDC,' },
    ]);
    // From now on the database refuses a second active holder of the oldest one's platformCustomerId.
    await expect(raw.insertInto('customers').values({ ...customer('Customer:01900000-0000-7000-8000-000000000003', 3, {}), uma_address: '$x@y.example' }).execute()).rejects.toThrow(/unique|duplicate key/i);
  });
});
