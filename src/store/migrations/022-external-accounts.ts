import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** External accounts of customers and of platforms; deleted ones stay, marked, for what refers to them. */
export const m022ExternalAccounts: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('external_accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('customer_id', 'text', (c) => c.references('customers.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('account_type', 'text', (c) => c.notNull())
      .addColumn('identifier', 'text')
      .addColumn('account_info', 'text', (c) => c.notNull())
      .addColumn('platform_account_id', 'text')
      .addColumn('ownership_type', 'text')
      .addColumn('default_uma_deposit_account', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('beneficiary_verification_status', 'text')
      .addColumn('beneficiary_verified_name', 'text')
      .addColumn('ownership_challenge', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .addColumn('list_position', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('external_accounts_platform_page').on('external_accounts').columns(['platform_id', 'list_position', 'id']).execute();
    await db.schema.createIndex('external_accounts_customer_page').on('external_accounts').columns(['platform_id', 'customer_id', 'list_position', 'id']).execute();
    await db.schema.createIndex('external_accounts_identifier').on('external_accounts').columns(['platform_id', 'account_type', 'identifier']).execute();
  },
});
