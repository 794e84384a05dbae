import { afterAll, beforeAll, expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { startSimulatorHarness, summaries, USD, type SimulatorHarness } from '../helpers/card-simulators.js';
import { describeEachEngine } from '../helpers/test-app.js';

const FUNDS = 3_000;
const PUMP = { descriptor: 'SHELL OIL 12345678', mcc: '5541', country: 'US' };

describeEachEngine('card simulator: balance_inquiry', (t) => {
  let h: SimulatorHarness;
  beforeAll(async () => {
    h = await startSimulatorHarness(t, FUNDS);
  });
  afterAll(() => h.stop());

  const entriesFor = async (id: string) => (await entriesOf(t.services.store.db, h.accountId)).filter((e) => e.card_transaction_id === id);

  it('lands SETTLED with every amount 0, holding, pulling and posting nothing, with a verified webhook', async () => {
    const b = await h.land('balance_inquiry', { merchant: PUMP }, 'CARD_TRANSACTION.SETTLED');
    expect(b.txn).toMatchObject({
      status: 'SETTLED',
      direction: 'DEBIT',
      accountId: h.accountId,
      merchant: PUMP,
      authorizedAmount: { amount: 0, currency: { code: 'USD' } },
      settledAmount: { amount: 0 },
      refundedAmount: { amount: 0 },
      ...summaries([0, 0, 0]),
    });
    expect(b.txn.operations.map((o: { kind: string; status: string; amount: number }) => [o.kind, o.status, o.amount])).toEqual([['BALANCE_INQUIRY', 'LANDED', 0]]);
    expect(b.webhook.payload?.operation).toEqual({ kind: 'BALANCE_INQUIRY', issuerTransactionToken: b.token, amount: 0 });
    expect(await entriesFor(b.id)).toEqual([]);
    await h.expectBalances('balance inquiry');
    await h.expectLandedOnce(b.id, b.token);
  });

  it('is declined by the card state and the descriptor suffixes, as an authorization is, still moving nothing', async () => {
    await h.setCardState('FROZEN');
    const paused = await h.land('balance_inquiry', { merchant: PUMP }, 'CARD_TRANSACTION.DECLINED');
    expect(paused.txn).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED', authorizedAmount: { amount: 0 } });
    await h.setCardState('ACTIVE');
    const noFunds = await h.land('balance_inquiry', { merchant: { descriptor: 'PUMP 002' } }, 'CARD_TRANSACTION.DECLINED');
    expect(noFunds.txn).toMatchObject({ declineReason: 'INSUFFICIENT_FUNDS' });
    const pausedBySuffix = await h.land('balance_inquiry', { merchant: { descriptor: 'PUMP 003' } }, 'CARD_TRANSACTION.DECLINED');
    expect(pausedBySuffix.txn).toMatchObject({ declineReason: 'CARD_PAUSED' });
    // 005 and 006 are about a pull, and an inquiry pulls nothing: approved, nothing pending, no EXCEPTION.
    for (const descriptor of ['PUMP 005', 'PUMP 006']) {
      const plain = await h.land('balance_inquiry', { merchant: { descriptor } }, 'CARD_TRANSACTION.SETTLED');
      expect(plain.txn, descriptor).toMatchObject({ status: 'SETTLED', ...summaries([0, 0, 0]) });
      expect(plain.txn.operations, descriptor).toHaveLength(1);
    }
    for (const id of [paused.id, noFunds.id, pausedBySuffix.id]) expect(await entriesFor(id)).toEqual([]);
    await h.expectBalances('after the declined inquiries');
  });

  it('takes no further operation (409), no amount or currency (400 naming them), and an unknown card is 404', async () => {
    const b = await h.land('balance_inquiry', { merchant: PUMP }, 'CARD_TRANSACTION.SETTLED');
    for (const [kind, body] of [
      ['clearing', { cardTransactionId: b.id, amount: 100 }],
      ['return', { cardTransactionId: b.id, amount: 1 }],
      ['authorization_advice', { cardTransactionId: b.id, amount: 100 }],
      ['authorization_expiry', { cardTransactionId: b.id }],
    ] as const) {
      const res = await h.post(kind, body);
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(409);
      expect(res.json()).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'SETTLED' } });
      expect(res.json().message, kind).toContain('balance inquiry');
    }
    const extra = await h.post('balance_inquiry', { amount: 100, currency: USD, merchant: PUMP });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'currency']);
    const noMerchant = await h.post('balance_inquiry', {});
    expect(noMerchant.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['merchant']);
    const unknown = await h.post('balance_inquiry', { merchant: PUMP }, 'Card:019542f5-b3e7-7d02-8000-00000000dead');
    expect(unknown.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    expect((await h.caller.req('GET', `/transactions/${b.id}`)).json().operations).toHaveLength(1);
    await h.expectBalances('after the refusals');
  });
});
