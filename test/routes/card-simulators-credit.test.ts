import { afterAll, beforeAll, expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { startSimulatorHarness, summaries, USD, type SimulatorHarness } from '../helpers/card-simulators.js';
import { describeEachEngine } from '../helpers/test-app.js';

const FUNDS = 5_000;
const MERCHANT = { descriptor: 'ACME MARKETPLACE', mcc: '5942', country: 'US' };

describeEachEngine('card simulators: credit_authorization and credit_authorization_advice', (t) => {
  let h: SimulatorHarness;
  beforeAll(async () => {
    h = await startSimulatorHarness(t, FUNDS);
  });
  afterAll(() => h.stop());

  for (const kind of ['credit_authorization', 'credit_authorization_advice'] as const) {
    it(`${kind}: opens a CREDIT transaction holding nothing; its clearing credits the funding account`, async () => {
      const res = await h.post(kind, { amount: 2_500, currency: USD, merchant: MERCHANT });
      expect(res.statusCode, res.body).toBe(202);
      expect(Object.keys(res.json()).sort()).toEqual(['cardTransactionId', 'issuerTransactionToken']);
      const opened = await h.land(kind, { amount: 2_500, currency: USD, merchant: MERCHANT }, 'CARD_TRANSACTION.AUTHORIZED');
      expect(opened.txn).toMatchObject({
        status: 'AUTHORIZED',
        direction: 'CREDIT',
        accountId: h.accountId,
        merchant: MERCHANT,
        authorizedAmount: { amount: 2_500 },
        settledAmount: { amount: 0 },
        ...summaries([0, 0, 0]),
      });
      const opKind = kind.toUpperCase();
      expect(opened.webhook.payload?.operation).toEqual({ kind: opKind, issuerTransactionToken: opened.token, amount: 2_500 });
      await h.expectBalances(`${kind}: nothing held`);
      await h.expectLandedOnce(opened.id, opened.token);

      const cleared = await h.land('clearing', { cardTransactionId: opened.id, amount: 2_500 }, 'CARD_TRANSACTION.SETTLED');
      expect(cleared.txn).toMatchObject({ status: 'SETTLED', direction: 'CREDIT', settledAmount: { amount: 2_500 }, ...summaries([0, 0, 0], [1, 2_500]) });
      h.model.available += 2_500;
      h.model.total += 2_500;
      await h.expectBalances(`${kind}: cleared, credited`);
      const entries = (await entriesOf(t.services.store.db, h.accountId)).filter((e) => e.card_transaction_id === opened.id);
      expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([['CLEARING_CREDIT', 2_500]]);
      // The first call's transaction: also a CREDIT, landed once.
      await h.expectLandedOnce(res.json().cardTransactionId, res.json().issuerTransactionToken);
      await h.land('authorization_expiry', { cardTransactionId: res.json().cardTransactionId }, 'CARD_TRANSACTION.EXPIRED');
      await h.expectBalances(`${kind}: the other one expired, nothing moved`);
    });
  }

  it('is declined CARD_PAUSED on a frozen card and by the descriptor suffixes; no spending limit or balance applies', async () => {
    await h.setCardState('FROZEN');
    const paused = await h.land('credit_authorization', { amount: 100, currency: USD, merchant: MERCHANT }, 'CARD_TRANSACTION.DECLINED');
    expect(paused.txn).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED', direction: 'CREDIT', ...summaries([0, 0, 0]) });
    await h.setCardState('ACTIVE');
    const byAdvice = await h.land('credit_authorization_advice', { amount: 100, currency: USD, merchant: { descriptor: 'ACME 003' } }, 'CARD_TRANSACTION.DECLINED');
    expect(byAdvice.txn).toMatchObject({ declineReason: 'CARD_PAUSED' });
    const bySuffix = await h.land('credit_authorization', { amount: 100, currency: USD, merchant: { descriptor: 'ACME 002' } }, 'CARD_TRANSACTION.DECLINED');
    expect(bySuffix.txn).toMatchObject({ declineReason: 'INSUFFICIENT_FUNDS' });
    // Far above the balance and above a spending limit: a credit is still approved.
    const limited = await h.caller.req('PATCH', `/cards/${h.cardId}`, { maxSpendPerTransaction: 1_000 });
    expect(limited.statusCode, limited.body).toBe(200);
    const big = await h.land('credit_authorization', { amount: 1_000_000, currency: USD, merchant: MERCHANT }, 'CARD_TRANSACTION.AUTHORIZED');
    expect(big.txn).toMatchObject({ status: 'AUTHORIZED', direction: 'CREDIT', authorizedAmount: { amount: 1_000_000 } });
    expect((await h.caller.req('PATCH', `/cards/${h.cardId}`, { maxSpendPerTransaction: null })).statusCode).toBe(200);
    await h.expectBalances('after the declines');
  });

  it('refuses what a credit cannot take (return, 409), a body without currency or with a foreign one (400), and an unknown card (404)', async () => {
    const credit = await h.land('credit_authorization', { amount: 900, currency: USD, merchant: MERCHANT }, 'CARD_TRANSACTION.AUTHORIZED');
    await h.land('clearing', { cardTransactionId: credit.id, amount: 900 }, 'CARD_TRANSACTION.SETTLED');
    h.model.available += 900;
    h.model.total += 900;
    const ret = await h.post('return', { cardTransactionId: credit.id, amount: 100 });
    expect(ret.statusCode, ret.body).toBe(409);
    expect(ret.json()).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'SETTLED' } });
    expect(ret.json().message).toContain('DEBIT');

    for (const kind of ['credit_authorization', 'credit_authorization_advice']) {
      const bare = await h.post(kind, { amount: 100, merchant: MERCHANT });
      expect(bare.statusCode, bare.body).toBe(400);
      expect(bare.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['currency']);
      const eur = await h.post(kind, { amount: 100, currency: { code: 'EUR' }, merchant: MERCHANT });
      expect(eur.json()).toMatchObject({ status: 400, details: { errors: [expect.objectContaining({ field: 'currency.code' })] } });
      const zero = await h.post(kind, { amount: 0, currency: USD, merchant: MERCHANT });
      expect(zero.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['amount']);
      const unknown = await h.post(kind, { amount: 100, currency: USD, merchant: MERCHANT }, 'Card:019542f5-b3e7-7d02-8000-00000000dead');
      expect(unknown.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    }
    await h.expectBalances('after the refusals');
  });
});
