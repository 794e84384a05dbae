import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

export const m004Cards: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cards')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('cardholder_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('platform_card_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('form', 'text', (c) => c.notNull())
      .addColumn('brand', 'text', (c) => c.notNull())
      .addColumn('last4', 'text', (c) => c.notNull())
      .addColumn('exp_month', 'integer', (c) => c.notNull())
      .addColumn('exp_year', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('funding_sources', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('cards_platform_page').on('cards').columns(['platform_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('cards_holder_page').on('cards').columns(['platform_id', 'cardholder_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('card_transactions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('card_id', 'text', (c) => c.notNull().references('cards.id'))
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('merchant', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('authorized_amount', 'bigint', (c) => c.notNull())
      .addColumn('settled_amount', 'bigint', (c) => c.notNull())
      .addColumn('refunded_amount', 'bigint', (c) => c.notNull())
      .addColumn('settlement_count', 'integer', (c) => c.notNull())
      .addColumn('refund_count', 'integer', (c) => c.notNull())
      .addColumn('last_return_amount', 'bigint')
      .addColumn('last_return_prior_status', 'text')
      .addColumn('issuer_transaction_token', 'text', (c) => c.notNull())
      .addColumn('next_seq', 'integer', (c) => c.notNull())
      .addColumn('authorized_at', 'bigint')
      .addColumn('last_event_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('card_transactions_platform_page').on('card_transactions').columns(['platform_id', 'created_at', 'id']).execute();
    await db.schema
      .createIndex('card_transactions_card_page')
      .on('card_transactions')
      .columns(['platform_id', 'card_id', 'created_at', 'id'])
      .execute();

    await db.schema
      .createTable('card_operations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('card_transaction_id', 'text', (c) => c.notNull().references('card_transactions.id'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint')
      .addColumn('issuer_transaction_token', 'text', (c) => c.notNull().unique())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('accepted_at', 'bigint', (c) => c.notNull())
      .addColumn('processed_at', 'bigint')
      .addUniqueConstraint('card_operations_txn_seq', ['card_transaction_id', 'seq'])
      .execute();
  },
});
