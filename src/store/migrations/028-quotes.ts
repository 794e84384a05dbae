import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** Cross-currency quotes, the sandbox exchange rates a platform set, and UMA invitations. */
export const m028Quotes: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('exchange_rate_overrides')
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('source_currency', 'text', (c) => c.notNull())
      .addColumn('destination_currency', 'text', (c) => c.notNull())
      .addColumn('exchange_rate', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('exchange_rate_overrides_pk', ['platform_id', 'source_currency', 'destination_currency'])
      .execute();
    await db.schema
      .createTable('quotes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('customer_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('sending_currency', 'text', (c) => c.notNull())
      .addColumn('receiving_currency', 'text', (c) => c.notNull())
      .addColumn('total_sending_amount', 'bigint', (c) => c.notNull())
      .addColumn('total_receiving_amount', 'bigint', (c) => c.notNull())
      .addColumn('exchange_rate', 'text', (c) => c.notNull())
      .addColumn('fees_included', 'bigint', (c) => c.notNull())
      .addColumn('platform_fees_included', 'bigint', (c) => c.notNull())
      .addColumn('transaction_id', 'text', (c) => c.notNull())
      .addColumn('payment_instructions', 'text')
      .addColumn('request', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('quotes_platform').on('quotes').columns(['platform_id', 'id']).execute();
    await db.schema
      .createTable('uma_invitations')
      .addColumn('code', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('inviter_uma', 'text', (c) => c.notNull())
      .addColumn('invitee_uma', 'text')
      .addColumn('first_name', 'text')
      .addColumn('amount_to_send', 'bigint')
      .addColumn('amount_currency', 'text')
      .addColumn('expires_at', 'bigint')
      .addColumn('claimed_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
});
