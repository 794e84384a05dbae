import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** Transfers in and out (payment transactions), and the ledger entries' link to the one that made them. */
export const m027PaymentTransactions: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('payment_transactions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('customer_id', 'text', (c) => c.references('customers.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('direction', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('internal_account_id', 'text', (c) => c.notNull())
      .addColumn('external_account_id', 'text', (c) => c.notNull())
      .addColumn('external_identifier', 'text')
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('payment_rail', 'text')
      .addColumn('rail_selection_mode', 'text')
      .addColumn('remittance_information', 'text')
      .addColumn('purpose_of_payment', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('failure_reason', 'text')
      .addColumn('refund', 'text')
      .addColumn('reference', 'text', (c) => c.notNull())
      .addColumn('receipt_delivery_confirmed_at', 'bigint')
      .addColumn('settled_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('list_position', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payment_transactions_platform_page').on('payment_transactions').columns(['platform_id', 'list_position', 'id']).execute();
    await db.schema.createIndex('payment_transactions_customer_page').on('payment_transactions').columns(['platform_id', 'customer_id', 'list_position', 'id']).execute();
    await db.schema.alterTable('ledger_entries').addColumn('payment_transaction_id', 'text').execute();
  },
});
