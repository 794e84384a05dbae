import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** An outgoing payment that executes a quote (its quote, the receiving side, the fees and the platform account they are booked to); an incoming UMA payment's sender. */
export const m029QuotePayments: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    for (const [name, type] of [
      ['quote_id', 'text'],
      ['received_currency', 'text'],
      ['received_amount', 'bigint'],
      ['exchange_rate', 'text'],
      ['fees', 'bigint'],
      ['platform_fees', 'bigint'],
      ['fee_account_id', 'text'],
      ['counterparty_uma', 'text'],
    ] as const) {
      await db.schema.alterTable('payment_transactions').addColumn(name, type).execute();
    }
    await db.schema.createIndex('quotes_transaction').on('quotes').column('transaction_id').execute();
  },
});
