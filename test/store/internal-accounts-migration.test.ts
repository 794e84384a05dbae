import { expect, it } from 'vitest';
import { landOperations } from '../../src/domain/cards/card-simulations.js';
import type { Logger } from '../../src/logger.js';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import type { CardTransactionRow } from '../../src/store/tables/cards.js';
import { describeOnNewDatabase, migrateBefore } from '../helpers/migrations.js';

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const UUID = (n: number) => `0190ffff-0000-7000-8000-${String(n).padStart(12, '0')}`;

describeOnNewDatabase('migration 010: accounts for existing customers', (t) => {
  it('opens every existing customer its USD account, names it on the card transactions, and opens a HOLD for each open hold', async () => {
    const { store } = t;
    await migrateBefore(store, '010');

    const db = store.db as never as import('kysely').Kysely<any>;
    await db.insertInto('platforms').values({ id: 'Platform:p', name: 'p', created_at: 1 }).execute();
    const customer = (n: number) => ({ id: `Customer:${UUID(n)}`, platform_id: 'Platform:p', customer_type: 'INDIVIDUAL', platform_customer_id: `c${n}`, kyc_status: 'UNVERIFIED', data: '{}', owner_count: 0, created_at: 1_000 + n, updated_at: 1_000 + n });
    await db.insertInto('customers').values([customer(1), customer(2)]).execute();
    await db.insertInto('cards').values({ id: 'Card:c', platform_id: 'Platform:p', cardholder_id: customer(1).id, platform_card_id: 'c', state: 'ACTIVE', form: 'VIRTUAL', brand: 'VISA', last4: '0000', exp_month: 1, exp_year: 2030, currency: 'USD', funding_sources: '[]', created_at: 1, updated_at: 1 }).execute();
    const txn = (n: number, status: string, authorized: number, settled: number) => ({
      id: `CardTransaction:${UUID(n)}`, platform_id: 'Platform:p', card_id: 'Card:c', customer_id: customer(1).id, status, merchant: '{"descriptor":"X"}', currency: 'USD',
      authorized_amount: authorized, settled_amount: settled, refunded_amount: 0, settlement_count: settled > 0 ? 1 : 0, refund_count: 0, last_return_amount: null, last_return_prior_status: null,
      issuer_transaction_token: `itt_${n}`, next_seq: 2, authorized_at: 5, last_event_at: 5, created_at: 5, updated_at: 5,
    });
    await db.insertInto('card_transactions').values([txn(1, 'AUTHORIZED', 1_000, 0), txn(2, 'PARTIALLY_SETTLED', 1_000, 300), txn(3, 'SETTLED', 500, 500), txn(4, 'EXPIRED', 800, 0)]).execute();

    await migrateToLatest(store);

    const accounts = await store.db.selectFrom('internal_accounts').selectAll().orderBy('customer_id').execute();
    expect(accounts.map((a) => [a.id, a.customer_id, a.type, a.status, a.currency, Number(a.created_at)])).toEqual([
      [`InternalAccount:${UUID(1)}`, customer(1).id, 'INTERNAL_FIAT', 'ACTIVE', 'USD', 1_001],
      [`InternalAccount:${UUID(2)}`, customer(2).id, 'INTERNAL_FIAT', 'ACTIVE', 'USD', 1_002],
    ]);
    const account = accounts[0]!.id;
    expect(accounts.map((a) => [Number(a.available_balance), Number(a.total_balance)])).toEqual([[-1_700, 0], [0, 0]]);
    const txns = await store.db.selectFrom('card_transactions').select(['id', 'account_id']).execute();
    expect(txns.every((t) => t.account_id === account)).toBe(true);
    expect((await entriesOf(store.db, account)).map((e) => [e.kind, Number(e.amount), e.card_transaction_id]).sort()).toEqual([
      ['HOLD', -1_000, txn(1, '', 0, 0).id],
      ['HOLD', -700, txn(2, '', 0, 0).id],
    ]);

    // The hold a clearing releases is the one the migration opened: the account ends where the arithmetic says.
    await store.db.insertInto('card_operations').values({ id: 'CardOperation:o', platform_id: 'Platform:p', card_transaction_id: txn(1, '', 0, 0).id, seq: 1, kind: 'CLEARING', amount: 1_000, issuer_transaction_token: 'itt_o', status: 'PENDING', reason: null, accepted_at: 6, processed_at: null }).execute();
    await store.transaction((uow) => landOperations(uow, [{ platformId: 'Platform:p', cardTransactionId: txn(1, '', 0, 0).id, operationId: 'CardOperation:o' }], silent));
    const after = await store.db.selectFrom('internal_accounts').selectAll().where('id', '=', account).executeTakeFirstOrThrow();
    expect([Number(after.available_balance), Number(after.total_balance)]).toEqual([-1_700, -1_000]);
    const landed = (await store.db.selectFrom('card_transactions').select('status').where('id', '=', txn(1, '', 0, 0).id).executeTakeFirstOrThrow()) as Pick<CardTransactionRow, 'status'>;
    expect(landed.status).toBe('SETTLED');
  });
});
