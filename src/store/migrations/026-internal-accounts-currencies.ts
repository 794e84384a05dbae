import { sql, type Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { MigrationFactory } from '../migrator.js';

const CRYPTO = new Set(['BTC', 'USDC', 'USDT']);

/** SQLite drops a column's reference only by rebuilding the table (nothing references ledger_entries). */
async function dropAccountReferenceOnSqlite(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ledger_entries_026')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('card_transaction_id', 'text')
    .addColumn('card_operation_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into ledger_entries_026 (id, platform_id, account_id, kind, amount, card_transaction_id, card_operation_id, created_at)
    select id, platform_id, account_id, kind, amount, card_transaction_id, card_operation_id, created_at from ledger_entries`.execute(db);
  await db.schema.dropTable('ledger_entries').execute();
  await db.schema.alterTable('ledger_entries_026').renameTo('ledger_entries').execute();
  await db.schema.createIndex('ledger_entries_account').on('ledger_entries').columns(['account_id', 'created_at', 'id']).execute();
}

/**
 * One internal account per currency: every existing customer gets an account for each of its
 * `currencies` the platform supports (placed on the lists beside its USD account, which keeps its
 * id and balances), and the platform's own accounts get their table (their entries join ledger_entries), one per
 * (platform, type, currency) by a unique constraint so concurrent openers cannot duplicate them.
 */
export const m026InternalAccountsCurrencies: MigrationFactory = (engine) => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('platform_internal_accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('available_balance', 'bigint', (c) => c.notNull())
      .addColumn('total_balance', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('platform_internal_accounts_kind', ['platform_id', 'type', 'currency'])
      .execute();
    // One ledger for both kinds of account: an entry's account_id names a customer's or a platform's account.
    if (engine === 'postgres') await sql`alter table ledger_entries drop constraint ledger_entries_account_id_fkey`.execute(db);
    else await dropAccountReferenceOnSqlite(db);

    const customers = await sql<{ id: string; platform_id: string; currency_list: string; list_position: number; supported: string }>`
      select c.id, c.platform_id, c.currency_list, c.list_position, w.supported_currencies as supported
      from customers c join platform_webhook_config w on w.platform_id = c.platform_id
      where c.currency_list <> '' and w.supported_currencies is not null`.execute(db);
    const now = Date.now();
    for (const c of customers.rows) {
      const supported = new Set((JSON.parse(c.supported) as { currencyCode: string }[]).map((s) => s.currencyCode));
      const wanted = c.currency_list.split(',').filter((code) => code !== '' && code !== 'USD' && supported.has(code));
      for (const currency of wanted) {
        await db
          .insertInto('internal_accounts')
          .values({
            id: `InternalAccount:${uuidv7()}`,
            platform_id: c.platform_id,
            customer_id: c.id,
            type: CRYPTO.has(currency) ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT',
            status: 'ACTIVE',
            currency,
            available_balance: 0,
            total_balance: 0,
            created_at: now,
            updated_at: now,
            list_position: c.list_position,
          })
          .onConflict((oc) => oc.columns(['customer_id', 'type', 'currency']).doNothing())
          .execute();
      }
    }
  },
});
