import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * Internal accounts and their append-only ledger. Every customer that exists already gets its USD
 * account here (its id derived from the customer's, created when the customer was), every card
 * transaction names the account it holds and debits, and each transaction's open hold becomes an
 * opening HOLD entry, so the releases and debits that follow keep the balances consistent.
 */
export const m010InternalAccounts: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('internal_accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('available_balance', 'bigint', (c) => c.notNull())
      .addColumn('total_balance', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      // Place on the platform's lists, given at commit like the other listed tables (009).
      .addColumn('list_position', 'bigint', (c) => c.notNull().defaultTo(0))
      .addUniqueConstraint('internal_accounts_customer_kind', ['customer_id', 'type', 'currency'])
      .execute();
    await db.schema.createIndex('internal_accounts_platform_page').on('internal_accounts').columns(['platform_id', 'list_position', 'id']).execute();
    await db.schema
      .createIndex('internal_accounts_customer_page')
      .on('internal_accounts')
      .columns(['platform_id', 'customer_id', 'list_position', 'id'])
      .execute();

    await db.schema
      .createTable('ledger_entries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('internal_accounts.id'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('card_transaction_id', 'text')
      .addColumn('card_operation_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ledger_entries_account').on('ledger_entries').columns(['account_id', 'created_at', 'id']).execute();

    await db.schema.alterTable('card_transactions').addColumn('account_id', 'text').execute();

    const now = Date.now();
    await sql`insert into internal_accounts (id, platform_id, customer_id, type, status, currency, available_balance, total_balance, created_at, updated_at, list_position)
      select 'InternalAccount:' || substr(id, 10), platform_id, id, 'INTERNAL_FIAT', 'ACTIVE', 'USD', 0, 0, created_at, created_at, list_position from customers`.execute(db);
    await sql`update card_transactions set account_id = (
      select a.id from internal_accounts a where a.customer_id = card_transactions.customer_id and a.type = 'INTERNAL_FIAT' and a.currency = card_transactions.currency)`.execute(db);
    await sql`insert into ledger_entries (id, platform_id, account_id, kind, amount, card_transaction_id, card_operation_id, created_at)
      select 'LedgerEntry:' || substr(id, 17), platform_id, account_id, 'HOLD', settled_amount - authorized_amount, id, null, ${now}
      from card_transactions
      where status in ('AUTHORIZED', 'PARTIALLY_SETTLED') and authorized_amount > settled_amount and account_id is not null`.execute(db);
    await sql`update internal_accounts set available_balance = (select sum(e.amount) from ledger_entries e where e.account_id = internal_accounts.id)
      where id in (select account_id from ledger_entries)`.execute(db);
  },
});
