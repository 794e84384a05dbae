import { expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrator.js';
import { describeOnNewDatabase, migrateBefore } from '../helpers/migrations.js';

const UUID = (n: number) => `0190ffff-0000-7000-8000-${String(n).padStart(12, '0')}`;
const config = (platformId: string, codes: string[] | null) => ({
  platform_id: platformId, webhook_endpoint: null, secret: 'whsec_x', uma_domain: null, created_at: 1, updated_at: 1,
  supported_currencies: codes === null ? null : JSON.stringify(codes.map((currencyCode) => ({ currencyCode, minAmount: 1, maxAmount: 10, requiredCounterpartyFields: [] }))),
});

describeOnNewDatabase('migration 026: an account per currency', (t) => {
  it('opens the missing accounts of each customer\u2019s supported currencies; the USD account keeps its id and balances', async () => {
    const { store } = t;
    await migrateBefore(store, '026');
    const db = store.db as never as import('kysely').Kysely<any>;
    await db.insertInto('platforms').values([{ id: 'Platform:p', name: 'p', created_at: 1 }, { id: 'Platform:q', name: 'q', created_at: 1 }]).execute();
    await db.insertInto('platform_webhook_config').values([config('Platform:p', ['USD', 'EUR', 'MXN']), config('Platform:q', null)]).execute();
    const customer = (n: number, platform: string, list: string) => ({
      id: `Customer:${UUID(n)}`, platform_id: platform, customer_type: 'INDIVIDUAL', platform_customer_id: `c${n}`, kyc_status: 'UNVERIFIED', data: '{}', owner_count: 0,
      uma_address: `$c${n}@x.invalid`, currency_list: list, list_position: 100 + n, created_at: 1_000 + n, updated_at: 1_000 + n,
    });
    await db.insertInto('customers').values([customer(1, 'Platform:p', ',USD,EUR,GBP,'), customer(2, 'Platform:p', ''), customer(3, 'Platform:q', ',EUR,')]).execute();
    const usd = { platform_id: 'Platform:p', type: 'INTERNAL_FIAT', status: 'ACTIVE', currency: 'USD', created_at: 1_001, updated_at: 1_001 };
    await db.insertInto('internal_accounts').values({ ...usd, id: `InternalAccount:${UUID(1)}`, customer_id: customer(1, '', '').id, available_balance: 700, total_balance: 900, list_position: 101 }).execute();
    await db.insertInto('ledger_entries').values([
      { id: 'LedgerEntry:a', platform_id: 'Platform:p', account_id: `InternalAccount:${UUID(1)}`, kind: 'FUNDING', amount: 900, card_transaction_id: null, card_operation_id: null, created_at: 1 },
      { id: 'LedgerEntry:b', platform_id: 'Platform:p', account_id: `InternalAccount:${UUID(1)}`, kind: 'HOLD', amount: -200, card_transaction_id: null, card_operation_id: null, created_at: 2 },
    ]).execute();

    await migrateToLatest(store);

    const accounts = await store.db.selectFrom('internal_accounts').selectAll().orderBy('customer_id').orderBy('currency').execute();
    // EUR is supported by p (GBP is not); customer 2 holds no currency; q supports none.
    expect(accounts.map((a) => [a.customer_id, a.currency, a.type, a.status, Number(a.available_balance), Number(a.total_balance), Number(a.list_position)])).toEqual([
      [customer(1, '', '').id, 'EUR', 'INTERNAL_FIAT', 'ACTIVE', 0, 0, 101],
      [customer(1, '', '').id, 'USD', 'INTERNAL_FIAT', 'ACTIVE', 700, 900, 101],
    ]);
    expect(accounts[1]!.id).toBe(`InternalAccount:${UUID(1)}`);
    const sums = await store.db.selectFrom('ledger_entries').select(['account_id']).select((eb) => eb.fn.sum<number>('amount').as('sum')).groupBy('account_id').execute();
    expect(sums.map((s) => [s.account_id, Number(s.sum)])).toEqual([[`InternalAccount:${UUID(1)}`, 700]]);
    expect(await store.db.selectFrom('platform_internal_accounts').selectAll().execute()).toEqual([]);
    // The ledger kept every entry and its index, and takes a platform account's entries now.
    expect((await store.db.selectFrom('ledger_entries').select('id').orderBy('id').execute()).map((e) => e.id)).toEqual(['LedgerEntry:a', 'LedgerEntry:b']);
    await db.insertInto('platform_internal_accounts').values({ id: 'InternalAccount:pa', platform_id: 'Platform:p', type: 'INTERNAL_FIAT', status: 'ACTIVE', currency: 'EUR', available_balance: 0, total_balance: 0, created_at: 1, updated_at: 1 }).execute();
    await db.insertInto('ledger_entries').values({ id: 'LedgerEntry:c', platform_id: 'Platform:p', account_id: 'InternalAccount:pa', kind: 'FUNDING', amount: 5, card_transaction_id: null, card_operation_id: null, created_at: 3 }).execute();
    await expect(db.insertInto('ledger_entries').values({ id: 'LedgerEntry:d', platform_id: 'Platform:none', account_id: 'InternalAccount:pa', kind: 'FUNDING', amount: 5, card_transaction_id: null, card_operation_id: null, created_at: 3 }).execute()).rejects.toThrow();
  });
});
