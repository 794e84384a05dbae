import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

export const m002Customers: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('customers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('customer_type', 'text', (c) => c.notNull())
      .addColumn('platform_customer_id', 'text', (c) => c.notNull())
      .addColumn('kyc_status', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('owner_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('customers_platform_page').on('customers').columns(['platform_id', 'created_at', 'id']).execute();
  },
});
