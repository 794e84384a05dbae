import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulatorHarness, summaries, USD, type SimulatorHarness } from '../helpers/card-simulators.js';
import { describeEachEngine } from '../helpers/test-app.js';

const FUNDS = 10_000;

describeEachEngine('card simulator: authorization_advice', (t) => {
  let h: SimulatorHarness;
  beforeAll(async () => {
    h = await startSimulatorHarness(t, FUNDS);
  });
  afterAll(() => h.stop());

  const authorize = async (amount: number) => {
    const a = await h.land('authorization', { amount, currency: USD, merchant: { descriptor: 'HOTEL' } }, 'CARD_TRANSACTION.AUTHORIZED');
    h.model.available -= amount;
    await h.expectBalances(`authorization of ${amount}`);
    return a.id;
  };
  const advise = (cardTransactionId: string, amount: number) => h.land('authorization_advice', { cardTransactionId, amount }, 'CARD_TRANSACTION.AUTHORIZED');

  it('re-sizes the open hold up and down, the authorized amount and the pull following, each with a verified webhook', async () => {
    const id = await authorize(1_000);
    const up = await advise(id, 1_500);
    expect(up.txn).toMatchObject({ status: 'AUTHORIZED', direction: 'DEBIT', authorizedAmount: { amount: 1_500 }, ...summaries([1, 1_500, 0]) });
    expect(up.webhook.payload?.operation).toEqual({ kind: 'AUTHORIZATION_ADVICE', issuerTransactionToken: up.token, amount: 1_500 });
    expect(up.txn.operations.map((o: { kind: string; status: string }) => [o.kind, o.status])).toEqual([
      ['AUTHORIZATION', 'LANDED'],
      ['AUTHORIZATION_ADVICE', 'LANDED'],
    ]);
    h.model.available -= 500;
    await h.expectBalances('advice up to 1500');
    await h.expectLandedOnce(id, up.token);

    const down = await advise(id, 400);
    expect(down.txn).toMatchObject({ status: 'AUTHORIZED', authorizedAmount: { amount: 400 }, ...summaries([1, 400, 0]) });
    h.model.available += 1_100;
    await h.expectBalances('advice down to 400');

    // Part settled, then re-sized to exactly what is settled: nothing is left open, the transaction is SETTLED.
    await h.land('clearing', { cardTransactionId: id, amount: 300 }, 'CARD_TRANSACTION.PARTIALLY_SETTLED');
    h.model.total -= 300;
    await h.expectBalances('clearing of 300');
    const closing = await h.land('authorization_advice', { cardTransactionId: id, amount: 300 }, 'CARD_TRANSACTION.SETTLED');
    expect(closing.txn).toMatchObject({ status: 'SETTLED', authorizedAmount: { amount: 300 }, settledAmount: { amount: 300 }, ...summaries([1, 300, 0], [1, 300]) });
    h.model.available += 100;
    await h.expectBalances('advice down to the settled 300');
  });

  it('is not declined: an advice reports what the network already approved, even above the available balance', async () => {
    const id = await authorize(100);
    const big = h.model.available + 1_000;
    const res = await advise(id, big + 100);
    expect(res.txn).toMatchObject({ status: 'AUTHORIZED', authorizedAmount: { amount: big + 100 } });
    h.model.available -= big;
    await h.expectBalances('advice above the available balance');
    await h.land('authorization_expiry', { cardTransactionId: id }, 'CARD_TRANSACTION.EXPIRED');
    h.model.available += big + 100;
    await h.expectBalances('expiry releases the re-sized hold');
  });

  it('refuses a transaction in the wrong state or direction (409), an amount below the settled one (400), and unknown or foreign ids (404), queuing nothing', async () => {
    const settled = await authorize(500);
    await h.land('clearing', { cardTransactionId: settled, amount: 500 }, 'CARD_TRANSACTION.SETTLED');
    h.model.total -= 500;
    const state = await h.post('authorization_advice', { cardTransactionId: settled, amount: 800 });
    expect(state.statusCode, state.body).toBe(409);
    expect(state.json()).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'SETTLED' } });

    const credit = await h.land('credit_authorization', { amount: 700, currency: USD, merchant: { descriptor: 'REFUND PUSH' } }, 'CARD_TRANSACTION.AUTHORIZED');
    const direction = await h.post('authorization_advice', { cardTransactionId: credit.id, amount: 800 });
    expect(direction.statusCode, direction.body).toBe(409);
    expect(direction.json()).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'AUTHORIZED' } });
    expect(direction.json().message).toContain('CREDIT');

    const partly = await authorize(1_000);
    await h.land('clearing', { cardTransactionId: partly, amount: 600 }, 'CARD_TRANSACTION.PARTIALLY_SETTLED');
    h.model.total -= 600;
    const below = await h.post('authorization_advice', { cardTransactionId: partly, amount: 599 });
    expect(below.statusCode, below.body).toBe(400);
    expect(below.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['amount']);

    const invalid = await h.post('authorization_advice', { cardTransactionId: partly, amount: 0, tip: 5 });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'tip']);
    const unknown = await h.post('authorization_advice', { cardTransactionId: 'CardTransaction:019542f5-b3e7-7d02-8000-00000000dead', amount: 800 });
    expect(unknown.json()).toMatchObject({ status: 404, code: 'TRANSACTION_NOT_FOUND' });
    const other = await t.newCaller();
    const foreign = await other.req('POST', `/sandbox/cards/${h.cardId}/simulate/authorization_advice`, { cardTransactionId: partly, amount: 800 });
    expect(foreign.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });

    expect((await h.caller.req('GET', `/transactions/${partly}`)).json().operations).toHaveLength(2);
    await h.expectBalances('after the refusals');
  });
});
