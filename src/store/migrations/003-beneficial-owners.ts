import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * Beneficial owners, clustered on the list's page key (customer, creation time, id) so a page is
 * one contiguous range read; the owner's rendered JSON is stored at write time.
 */
export const m003BeneficialOwners: MigrationFactory = (engine) => ({
  async up(db: Kysely<any>) {
    let table = db.schema
      .createTable('beneficial_owners')
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('platform_id', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('beneficial_owners_page', ['customer_id', 'created_at', 'id']);
    if (engine === 'sqlite') table = table.modifyEnd(sql`without rowid`);
    await table.execute();
    await db.schema.createIndex('beneficial_owners_id').unique().on('beneficial_owners').column('id').execute();
    await db.schema.createIndex('customers_platform_ref').on('customers').columns(['platform_id', 'platform_customer_id']).execute();
  },
});
