import { afterAll, beforeAll, expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { startSimulatorHarness, summaries, USD, type SimulatorHarness } from '../helpers/card-simulators.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

const FUNDS = 20_000;

describeEachEngine('card simulators: financial_authorization and financial_credit_authorization (single-message)', (t) => {
  let h: SimulatorHarness;
  beforeAll(async () => {
    h = await startSimulatorHarness(t, FUNDS);
  });
  afterAll(() => h.stop());

  const entriesFor = async (id: string) => (await entriesOf(t.services.store.db, h.accountId)).filter((e) => e.card_transaction_id === id).map((e) => [e.kind, Number(e.amount)]);

  it('financial_authorization: authorized and settled at once, debited with no hold left; a return refunds it', async () => {
    const atm = { descriptor: 'ATM WITHDRAWAL 24TH ST', mcc: '6011', country: 'US' };
    const f = await h.land('financial_authorization', { amount: 8_000, currency: USD, merchant: atm }, 'CARD_TRANSACTION.SETTLED');
    expect(f.txn).toMatchObject({
      status: 'SETTLED',
      direction: 'DEBIT',
      accountId: h.accountId,
      merchant: atm,
      authorizedAmount: { amount: 8_000 },
      settledAmount: { amount: 8_000 },
      refundedAmount: { amount: 0 },
      ...summaries([1, 8_000, 0], [1, 8_000]),
    });
    expect(f.webhook.payload?.operation).toEqual({ kind: 'FINANCIAL_AUTHORIZATION', issuerTransactionToken: f.token, amount: 8_000 });
    expect(await entriesFor(f.id)).toEqual([['CLEARING_DEBIT', -8_000]]);
    h.model.available -= 8_000;
    h.model.total -= 8_000;
    await h.expectBalances('financial authorization of 8000');
    await h.expectLandedOnce(f.id, f.token);

    const clearing = await h.post('clearing', { cardTransactionId: f.id, amount: 100 });
    expect(clearing.statusCode, clearing.body).toBe(409);
    expect(clearing.json()).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'SETTLED' } });

    const refunded = await h.land('return', { cardTransactionId: f.id, amount: 8_000 }, 'CARD_TRANSACTION.REFUNDED');
    expect(refunded.txn).toMatchObject({ status: 'REFUNDED', ...summaries([1, 8_000, 0], [1, 8_000], [1, 8_000]) });
    h.model.available += 8_000;
    h.model.total += 8_000;
    await h.expectBalances('financial authorization returned');
  });

  it('financial_credit_authorization: a CREDIT settled at once, credited to the funding account', async () => {
    const c = await h.land('financial_credit_authorization', { amount: 4_000, currency: USD, merchant: { descriptor: 'ACME PAYOUTS', mcc: '6012' } }, 'CARD_TRANSACTION.SETTLED');
    expect(c.txn).toMatchObject({ status: 'SETTLED', direction: 'CREDIT', authorizedAmount: { amount: 4_000 }, settledAmount: { amount: 4_000 }, ...summaries([0, 0, 0], [1, 4_000]) });
    expect(c.webhook.payload?.operation).toEqual({ kind: 'FINANCIAL_CREDIT_AUTHORIZATION', issuerTransactionToken: c.token, amount: 4_000 });
    expect(await entriesFor(c.id)).toEqual([['CLEARING_CREDIT', 4_000]]);
    h.model.available += 4_000;
    h.model.total += 4_000;
    await h.expectBalances('financial credit of 4000');
    await h.expectLandedOnce(c.id, c.token);
    const ret = await h.post('return', { cardTransactionId: c.id, amount: 100 });
    expect(ret.json()).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });
  });

  it('financial_authorization is decided as an authorization: declines hold and debit nothing; suffix 006 ends in EXCEPTION with the debit kept', async () => {
    const tooBig = await h.land('financial_authorization', { amount: h.model.available + 1, currency: USD, merchant: { descriptor: 'BIG TICKET' } }, 'CARD_TRANSACTION.DECLINED');
    expect(tooBig.txn).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS', settledAmount: { amount: 0 }, ...summaries([1, 0, 0]) });
    expect(await entriesFor(tooBig.id)).toEqual([]);
    const limited = await h.caller.req('PATCH', `/cards/${h.cardId}`, { maxSpendPerTransaction: 500 });
    expect(limited.statusCode).toBe(200);
    const overLimit = await h.land('financial_authorization', { amount: 501, currency: USD, merchant: { descriptor: 'SHOP' } }, 'CARD_TRANSACTION.DECLINED');
    expect(overLimit.txn).toMatchObject({ declineReason: 'SPEND_LIMIT_EXCEEDED' });
    expect((await h.caller.req('PATCH', `/cards/${h.cardId}`, { maxSpendPerTransaction: null })).statusCode).toBe(200);
    await h.setCardState('FROZEN');
    const paused = await h.land('financial_credit_authorization', { amount: 50, currency: USD, merchant: { descriptor: 'PAYOUT' } }, 'CARD_TRANSACTION.DECLINED');
    expect(paused.txn).toMatchObject({ declineReason: 'CARD_PAUSED', direction: 'CREDIT' });
    await h.setCardState('ACTIVE');
    await h.expectBalances('after the declines');

    const failed = await h.land('financial_authorization', { amount: 700, currency: USD, merchant: { descriptor: 'UBER EATS 006' } }, 'CARD_TRANSACTION.SETTLED');
    h.model.available -= 700;
    h.model.total -= 700;
    const txn = async () => (await h.caller.req('GET', `/transactions/${failed.id}`)).json();
    // The pull's failure is reported in the same commit as the landing: the transaction is EXCEPTION by the time it is read.
    expect(await txn()).toMatchObject({ status: 'EXCEPTION', settledAmount: { amount: 700 }, ...summaries([1, 0, 0], [1, 700]) });
    expect(await entriesFor(failed.id)).toEqual([['CLEARING_DEBIT', -700]]);
    await h.expectBalances('a financial authorization whose pull was reported failed');
  });

  it('takes an Idempotency-Key: the same key and body answer the same 202 and land one transaction', async () => {
    const body = { amount: 250, currency: USD, merchant: { descriptor: 'ATM ONCE' } };
    const headers = { 'idempotency-key': `fin-${h.cardId}` };
    const url = `/sandbox/cards/${h.cardId}/simulate/financial_authorization`;
    const first = await h.caller.req('POST', url, body, headers);
    const again = await h.caller.req('POST', url, body, headers);
    expect(first.statusCode, first.body).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const { cardTransactionId, issuerTransactionToken } = first.json();
    await until('the financial authorization to land', async () => ((await h.caller.req('GET', `/transactions/${cardTransactionId}`)).json().status === 'SETTLED' ? true : undefined));
    await h.expectLandedOnce(cardTransactionId, issuerTransactionToken);
    h.model.available -= 250;
    h.model.total -= 250;
    await h.expectBalances('one financial authorization for two calls with one key');
  });

  it('refuses a body without currency or with a field the document does not define (400, all named), and an unknown card (404)', async () => {
    for (const kind of ['financial_authorization', 'financial_credit_authorization']) {
      const bad = await h.post(kind, { amount: -1, merchant: { descriptor: 'X' }, cashback: 1 });
      expect(bad.statusCode, bad.body).toBe(400);
      expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'cashback', 'currency']);
      const unknown = await h.post(kind, { amount: 100, currency: USD, merchant: { descriptor: 'X' } }, 'Card:019542f5-b3e7-7d02-8000-00000000dead');
      expect(unknown.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    }
    await h.expectBalances('after the refusals');
  });
});
