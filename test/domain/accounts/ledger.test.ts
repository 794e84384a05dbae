import { describe, expect, it } from 'vitest';
import { applyOperation, type Ledger, type Operation } from '../../../src/domain/cards/card-transactions.js';
import { balanceDelta, movementsOf, openHold } from '../../../src/domain/accounts/ledger.js';

const pending: Ledger = { status: 'PENDING', authorized: 0, settled: 0, refunded: 0, settlementCount: 0, refundCount: 0, lastReturn: null };

/** Applies the operations in turn (from `start`); returns each one's movements. */
function runFrom(start: Ledger, ...ops: Operation[]) {
  let state = start;
  return ops.map((op) => {
    const r = applyOperation(state, op);
    if (!r.ok) throw new Error(r.reason);
    const moves = movementsOf(state, r.next);
    state = r.next;
    return { moves, hold: openHold(state), delta: balanceDelta(moves) };
  });
}
const run = (...ops: Operation[]) => runFrom(pending, ...ops);

describe('ledger movements of card operations', () => {
  it('an authorization holds; a partial clearing turns that part of the hold into a debit; the rest clears with a tip above the hold', () => {
    const [auth, part, rest] = run({ kind: 'AUTHORIZATION', amount: 1000 }, { kind: 'CLEARING', amount: 300 }, { kind: 'CLEARING', amount: 900 });
    expect(auth).toEqual({ moves: [{ kind: 'HOLD', amount: -1000 }], hold: 1000, delta: { available: -1000, total: 0 } });
    expect(part).toEqual({ moves: [{ kind: 'HOLD_RELEASE', amount: 300 }, { kind: 'CLEARING_DEBIT', amount: -300 }], hold: 700, delta: { available: 0, total: -300 } });
    expect(rest).toEqual({ moves: [{ kind: 'HOLD_RELEASE', amount: 700 }, { kind: 'CLEARING_DEBIT', amount: -900 }], hold: 0, delta: { available: -200, total: -900 } });
  });

  it('an expiry and a clearing of 0 release the whole hold and nothing else', () => {
    for (const expiry of [{ kind: 'AUTHORIZATION_EXPIRY', amount: null }, { kind: 'CLEARING', amount: 0 }] as Operation[]) {
      const [, released] = run({ kind: 'AUTHORIZATION', amount: 450 }, expiry);
      expect(released).toEqual({ moves: [{ kind: 'HOLD_RELEASE', amount: 450 }], hold: 0, delta: { available: 450, total: 0 } });
    }
  });

  it('a return credits, a return reversal debits the reversed return, neither touches holds', () => {
    const [, , ret, reversal] = run({ kind: 'AUTHORIZATION', amount: 500 }, { kind: 'CLEARING', amount: 500 }, { kind: 'RETURN', amount: 500 }, { kind: 'RETURN_REVERSAL', amount: null });
    expect(ret).toEqual({ moves: [{ kind: 'RETURN_CREDIT', amount: 500 }], hold: 0, delta: { available: 500, total: 500 } });
    expect(reversal).toEqual({ moves: [{ kind: 'RETURN_REVERSAL_DEBIT', amount: -500 }], hold: 0, delta: { available: -500, total: -500 } });
  });

  it('a partly settled transaction keeps holding the rest until it clears', () => {
    const [, , ret] = run({ kind: 'AUTHORIZATION', amount: 1000 }, { kind: 'CLEARING', amount: 400 }, { kind: 'RETURN', amount: 100 });
    expect(ret).toEqual({ moves: [{ kind: 'RETURN_CREDIT', amount: 100 }], hold: 600, delta: { available: 100, total: 100 } });
  });
});

describe('ledger movements of declines and pull reports', () => {
  it('a declined authorization holds nothing and moves nothing', () => {
    const [declined] = run({ kind: 'AUTHORIZATION', amount: 1000, decline: 'INSUFFICIENT_FUNDS' });
    expect(declined).toEqual({ moves: [], hold: 0, delta: { available: 0, total: 0 } });
  });

  it('a pull confirmation moves nothing; a pull reported failed (EXCEPTION) keeps the hold', () => {
    const [, confirmed] = run({ kind: 'AUTHORIZATION', amount: 800 }, { kind: 'PULL_CONFIRMATION', amount: null });
    expect(confirmed).toEqual({ moves: [], hold: 800, delta: { available: 0, total: 0 } });
    const [, failed] = run({ kind: 'AUTHORIZATION', amount: 800 }, { kind: 'PULL_FAILURE', amount: null });
    expect(failed).toEqual({ moves: [], hold: 800, delta: { available: 0, total: 0 } });
  });

  it('nothing applies to a DECLINED transaction', () => {
    let state = pending;
    const r = applyOperation(state, { kind: 'AUTHORIZATION', amount: 500, decline: 'CARD_PAUSED' });
    if (!r.ok) throw new Error(r.reason);
    state = r.next;
    expect(state.status).toBe('DECLINED');
    for (const op of [
      { kind: 'CLEARING', amount: 1 },
      { kind: 'CLEARING', amount: 0 },
      { kind: 'RETURN', amount: 1 },
      { kind: 'AUTHORIZATION_EXPIRY', amount: null },
      { kind: 'RETURN_REVERSAL', amount: null },
      { kind: 'PULL_CONFIRMATION', amount: null },
      { kind: 'AUTHORIZATION', amount: 1 },
    ] as Operation[]) {
      expect(applyOperation(state, op), op.kind).toMatchObject({ ok: false, refusal: 'state' });
    }
  });
});

describe('ledger movements of the single-message, credit, advice and inquiry operations', () => {
  it('a financial authorization debits at once with no hold; a financial credit credits at once', () => {
    const [debit] = run({ kind: 'FINANCIAL_AUTHORIZATION', amount: 800 });
    expect(debit).toEqual({ moves: [{ kind: 'CLEARING_DEBIT', amount: -800 }], hold: 0, delta: { available: -800, total: -800 } });
    const [credit] = runFrom({ ...pending, direction: 'CREDIT' }, { kind: 'FINANCIAL_CREDIT_AUTHORIZATION', amount: 400 });
    expect(credit).toEqual({ moves: [{ kind: 'CLEARING_CREDIT', amount: 400 }], hold: 0, delta: { available: 400, total: 400 } });
  });

  it('a credit authorization holds nothing; its clearing credits, its expiry moves nothing', () => {
    const credit: Ledger = { ...pending, direction: 'CREDIT' };
    const [auth, cleared] = runFrom(credit, { kind: 'CREDIT_AUTHORIZATION', amount: 600 }, { kind: 'CLEARING', amount: 600 });
    expect(auth).toEqual({ moves: [], hold: 0, delta: { available: 0, total: 0 } });
    expect(cleared).toEqual({ moves: [{ kind: 'CLEARING_CREDIT', amount: 600 }], hold: 0, delta: { available: 600, total: 600 } });
    const [, expired] = runFrom(credit, { kind: 'CREDIT_AUTHORIZATION_ADVICE', amount: 600 }, { kind: 'AUTHORIZATION_EXPIRY', amount: null });
    expect(expired).toEqual({ moves: [], hold: 0, delta: { available: 0, total: 0 } });
  });

  it('an authorization advice holds or releases the difference to its new total; a balance inquiry moves nothing', () => {
    const [, up, down] = run({ kind: 'AUTHORIZATION', amount: 1000 }, { kind: 'AUTHORIZATION_ADVICE', amount: 1500 }, { kind: 'AUTHORIZATION_ADVICE', amount: 300 });
    expect(up).toEqual({ moves: [{ kind: 'HOLD', amount: -500 }], hold: 1500, delta: { available: -500, total: 0 } });
    expect(down).toEqual({ moves: [{ kind: 'HOLD_RELEASE', amount: 1200 }], hold: 300, delta: { available: 1200, total: 0 } });
    const [inquiry] = run({ kind: 'BALANCE_INQUIRY', amount: 0 });
    expect(inquiry).toEqual({ moves: [], hold: 0, delta: { available: 0, total: 0 } });
  });
});
