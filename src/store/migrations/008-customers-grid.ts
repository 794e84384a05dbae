import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** The domain of the UMA addresses the sandbox assigns when neither the request nor the platform's umaDomain names one. */
/** Frozen with this migration: the domain the service then used for the addresses it made up. */
const SANDBOX_UMA_DOMAIN = 'sandbox.uma.invalid';

/**
 * Customers as the interface has them: a UMA address on every customer, soft delete, and the
 * region and currencies as columns so lists filter on them. An active (not deleted)
 * platformCustomerId and UMA address are unique per platform, enforced by partial unique indexes
 * (both engines), so two processes racing cannot both win. Duplicates made before this migration
 * stay readable: every one but the oldest is marked legacy_duplicate and left out of the index.
 */
export const m008CustomersGrid: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    const add = (column: string, type: 'text' | 'integer', notNullDefault?: number | string) =>
      db.schema
        .alterTable('customers')
        .addColumn(column, type, (c) => (notNullDefault === undefined ? c : c.notNull().defaultTo(notNullDefault)))
        .execute();
    await add('uma_address', 'text');
    await add('is_deleted', 'integer', 0);
    await add('legacy_duplicate', 'integer', 0);
    await add('region', 'text');
    // ",USD,USDC," so that a currency filter is one LIKE on both engines; codes are [A-Z0-9].
    await add('currency_list', 'text', '');

    // Existing customers get the address the sandbox would have assigned: unique since the id is.
    await sql`update customers set uma_address = '$c' || replace(substr(id, 10), '-', '') || ${`@${SANDBOX_UMA_DOMAIN}`} where uma_address is null`.execute(db);
    const withListFields = await db.selectFrom('customers').select(['id', 'data']).where((eb) => eb.or([eb('data', 'like', '%"region"%'), eb('data', 'like', '%"currencies"%')])).execute();
    for (const row of withListFields as { id: string; data: string }[]) {
      const data = JSON.parse(row.data) as { region?: string; currencies?: string[] };
      const currencyList = data.currencies && data.currencies.length > 0 ? `,${data.currencies.join(',')},` : '';
      await db.updateTable('customers').set({ region: data.region ?? null, currency_list: currencyList }).where('id', '=', row.id).execute();
    }

    await db.schema.createIndex('customers_platform_customer_id').on('customers').columns(['platform_id', 'platform_customer_id']).execute();
    await sql`update customers set legacy_duplicate = 1 where exists (
      select 1 from customers earlier
      where earlier.platform_id = customers.platform_id and earlier.platform_customer_id = customers.platform_customer_id
        and (earlier.created_at, earlier.id) < (customers.created_at, customers.id))`.execute(db);
    await db.schema
      .createIndex('customers_active_platform_customer_id')
      .unique()
      .on('customers')
      .columns(['platform_id', 'platform_customer_id'])
      .where(sql.ref('is_deleted'), '=', 0)
      .where(sql.ref('legacy_duplicate'), '=', 0)
      .execute();
    await db.schema.createIndex('customers_active_uma_address').unique().on('customers').columns(['platform_id', 'uma_address']).where(sql.ref('is_deleted'), '=', 0).execute();
  },
});
