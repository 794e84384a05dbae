import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyOperation, OPERATION_KINDS, project, type Ledger, type LedgerStatus, type Operation, type OperationKind } from '../../../src/domain/cards/card-transactions.js';

const NEW: Ledger = { status: 'PENDING', authorized: 0, settled: 0, refunded: 0, settlementCount: 0, refundCount: 0, lastReturn: null };

/** One ledger in each status, as the operations that lead there leave it (1000 authorized). */
const IN: Record<LedgerStatus, Ledger> = {
  PENDING: NEW,
  AUTHORIZED: { ...NEW, status: 'AUTHORIZED', authorized: 1000 },
  PARTIALLY_SETTLED: { ...NEW, status: 'PARTIALLY_SETTLED', authorized: 1000, settled: 400, settlementCount: 1 },
  SETTLED: { ...NEW, status: 'SETTLED', authorized: 1000, settled: 1000, settlementCount: 1 },
  REFUNDED: { ...NEW, status: 'REFUNDED', authorized: 1000, settled: 1000, settlementCount: 1, refunded: 1000, refundCount: 1, lastReturn: { amount: 1000, priorStatus: 'SETTLED' } },
  EXCEPTION: { ...NEW, status: 'EXCEPTION', authorized: 1000 },
  EXPIRED: { ...NEW, status: 'EXPIRED', authorized: 1000 },
  DECLINED: { ...NEW, status: 'DECLINED' },
};
const STATUSES = Object.keys(IN) as LedgerStatus[];

/** The statuses each kind applies to (an amount that fits: 100, none for expiry and reversal); every other status refuses it (409). */
const ALLOWED: Record<OperationKind, { requires: string; from: LedgerStatus[]; amount: number | null }> = {
  AUTHORIZATION: { requires: 'a new transaction', from: ['PENDING'], amount: 100 },
  BALANCE_INQUIRY: { requires: 'a new transaction', from: ['PENDING'], amount: 0 },
  CREDIT_AUTHORIZATION: { requires: 'a new transaction', from: ['PENDING'], amount: 100 },
  CREDIT_AUTHORIZATION_ADVICE: { requires: 'a new transaction', from: ['PENDING'], amount: 100 },
  FINANCIAL_AUTHORIZATION: { requires: 'a new transaction', from: ['PENDING'], amount: 100 },
  FINANCIAL_CREDIT_AUTHORIZATION: { requires: 'a new transaction', from: ['PENDING'], amount: 100 },
  AUTHORIZATION_ADVICE: { requires: 'AUTHORIZED or PARTIALLY_SETTLED', from: ['AUTHORIZED', 'PARTIALLY_SETTLED'], amount: 1200 },
  CLEARING: { requires: 'AUTHORIZED or PARTIALLY_SETTLED', from: ['AUTHORIZED', 'PARTIALLY_SETTLED'], amount: 100 },
  RETURN: { requires: 'SETTLED or PARTIALLY_SETTLED', from: ['SETTLED', 'PARTIALLY_SETTLED'], amount: 100 },
  AUTHORIZATION_EXPIRY: { requires: 'AUTHORIZED with nothing settled', from: ['AUTHORIZED'], amount: null },
  RETURN_REVERSAL: { requires: 'REFUNDED', from: ['REFUNDED'], amount: null },
  PULL_CONFIRMATION: { requires: 'approved', from: ['AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED', 'EXCEPTION', 'EXPIRED'], amount: null },
  PULL_FAILURE: { requires: 'AUTHORIZED', from: ['AUTHORIZED'], amount: null },
};

const op = (kind: OperationKind, amount: number | null = null, decline?: Operation['decline']): Operation => ({ kind, amount, ...(decline ? { decline } : {}) });

describe('card transaction state machine: which operation applies in which status', () => {
  for (const kind of OPERATION_KINDS) {
    const { requires, from, amount } = ALLOWED[kind];
    for (const status of STATUSES) {
      const allowed = from.includes(status);
      it(`${kind} in ${status}: ${allowed ? 'applies' : 'refused (409)'}`, () => {
        const before = structuredClone(IN[status]);
        const outcome = applyOperation(IN[status], op(kind, amount));
        if (allowed) expect(outcome.ok).toBe(true);
        else expect(outcome).toEqual({ ok: false, refusal: 'state', reason: `${kind} needs the transaction ${requires}; it is ${status}` });
        // Pure: the ledger given is never changed.
        expect(IN[status]).toEqual(before);
      });
    }
  }
});

describe('card transaction state machine: what each operation does to the ledger', () => {
  it('AUTHORIZATION holds its amount; declined, it holds nothing and the transaction is DECLINED', () => {
    expect(applyOperation(NEW, op('AUTHORIZATION', 1000))).toEqual({ ok: true, amount: 1000, next: { ...NEW, status: 'AUTHORIZED', authorized: 1000 } });
    for (const reason of ['CARD_PAUSED', 'INSUFFICIENT_FUNDS'] as const) {
      expect(applyOperation(NEW, op('AUTHORIZATION', 1000, reason))).toEqual({ ok: true, amount: 1000, next: { ...NEW, status: 'DECLINED' } });
    }
  });

  it('PULL_CONFIRMATION changes nothing and reports the authorized amount, whatever the transaction became meanwhile', () => {
    for (const status of ALLOWED.PULL_CONFIRMATION.from) {
      expect(applyOperation(IN[status], op('PULL_CONFIRMATION')), status).toEqual({ ok: true, amount: 1000, next: IN[status] });
    }
  });

  it('PULL_FAILURE makes an AUTHORIZED transaction EXCEPTION, its hold kept', () => {
    expect(applyOperation(IN.AUTHORIZED, op('PULL_FAILURE'))).toEqual({ ok: true, amount: 1000, next: { ...IN.AUTHORIZED, status: 'EXCEPTION' } });
  });

  it('CLEARING settles part, then the rest; a clearing above the authorized amount (a tip) settles it all', () => {
    const part = applyOperation(IN.AUTHORIZED, op('CLEARING', 400));
    expect(part).toEqual({ ok: true, amount: 400, next: IN.PARTIALLY_SETTLED });
    expect(applyOperation(IN.PARTIALLY_SETTLED, op('CLEARING', 600))).toEqual({ ok: true, amount: 600, next: { ...IN.SETTLED, settlementCount: 2 } });
    expect(applyOperation(IN.PARTIALLY_SETTLED, op('CLEARING', 100))).toEqual({ ok: true, amount: 100, next: { ...IN.PARTIALLY_SETTLED, settled: 500, settlementCount: 2 } });
    expect(applyOperation(IN.AUTHORIZED, op('CLEARING', 1200))).toEqual({ ok: true, amount: 1200, next: { ...IN.SETTLED, settled: 1200 } });
  });

  it('a CLEARING of 0 expires an authorization with nothing settled, as AUTHORIZATION_EXPIRY does, and is refused once part is settled', () => {
    const expired = { ...IN.AUTHORIZED, status: 'EXPIRED' as const };
    expect(applyOperation(IN.AUTHORIZED, op('CLEARING', 0))).toEqual({ ok: true, amount: 0, next: expired });
    expect(applyOperation(IN.AUTHORIZED, op('AUTHORIZATION_EXPIRY'))).toEqual({ ok: true, amount: 1000, next: expired });
    expect(applyOperation(IN.PARTIALLY_SETTLED, op('CLEARING', 0))).toEqual({
      ok: false,
      refusal: 'state',
      reason: 'CLEARING of amount 0 (expiry) needs the transaction AUTHORIZED with nothing settled; it is PARTIALLY_SETTLED',
    });
  });

  it('RETURN refunds up to the net settled amount: in part the status stays, in full it is REFUNDED and remembers the status before', () => {
    const part = applyOperation(IN.SETTLED, op('RETURN', 300));
    expect(part).toEqual({ ok: true, amount: 300, next: { ...IN.SETTLED, refunded: 300, refundCount: 1 } });
    if (!part.ok) return;
    expect(applyOperation(part.next, op('RETURN', 700))).toEqual({
      ok: true,
      amount: 700,
      next: { ...IN.SETTLED, refunded: 1000, refundCount: 2, status: 'REFUNDED', lastReturn: { amount: 700, priorStatus: 'SETTLED' } },
    });
    expect(applyOperation(part.next, op('RETURN', 701))).toEqual({ ok: false, refusal: 'amount', reason: 'must be at most the net settled amount, 700' });
    expect(applyOperation(IN.PARTIALLY_SETTLED, op('RETURN', 400))).toEqual({
      ok: true,
      amount: 400,
      next: { ...IN.PARTIALLY_SETTLED, refunded: 400, refundCount: 1, status: 'REFUNDED', lastReturn: { amount: 400, priorStatus: 'PARTIALLY_SETTLED' } },
    });
  });

  it('RETURN_REVERSAL undoes the return that made the transaction REFUNDED, back to the status before it; only once', () => {
    const refunded = applyOperation(IN.PARTIALLY_SETTLED, op('RETURN', 400));
    if (!refunded.ok) throw new Error(refunded.reason);
    const reversed = applyOperation(refunded.next, op('RETURN_REVERSAL'));
    expect(reversed).toEqual({ ok: true, amount: 400, next: IN.PARTIALLY_SETTLED });
    if (reversed.ok) expect(applyOperation(reversed.next, op('RETURN_REVERSAL'))).toMatchObject({ ok: false, refusal: 'state' });
    // REFUNDED without the return that made it (none remembered): nothing to reverse.
    expect(applyOperation({ ...IN.REFUNDED, lastReturn: null }, op('RETURN_REVERSAL'))).toMatchObject({ ok: false, refusal: 'state' });
  });
});

describe('card transaction state machine: the opening variants, directions and advices', () => {
  const CREDIT_NEW: Ledger = { ...NEW, direction: 'CREDIT' };
  it('a financial (single-message) authorization, debit or credit, lands SETTLED at once; declined, it is DECLINED', () => {
    for (const kind of ['FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION'] as const) {
      expect(applyOperation(NEW, op(kind, 800))).toEqual({ ok: true, amount: 800, next: { ...NEW, status: 'SETTLED', authorized: 800, settled: 800, settlementCount: 1 } });
      expect(applyOperation(NEW, op(kind, 800, 'CARD_PAUSED'))).toEqual({ ok: true, amount: 800, next: { ...NEW, status: 'DECLINED' } });
    }
  });

  it('a credit authorization (or its advice) lands AUTHORIZED; a balance inquiry lands SETTLED with nothing authorized', () => {
    for (const kind of ['CREDIT_AUTHORIZATION', 'CREDIT_AUTHORIZATION_ADVICE'] as const) {
      expect(applyOperation(CREDIT_NEW, op(kind, 500))).toEqual({ ok: true, amount: 500, next: { ...CREDIT_NEW, status: 'AUTHORIZED', authorized: 500 } });
    }
    expect(applyOperation(NEW, op('BALANCE_INQUIRY', 0))).toEqual({ ok: true, amount: 0, next: { ...NEW, status: 'SETTLED' } });
  });

  it('a balance inquiry takes no further operation, whatever its status', () => {
    const inquiry: Ledger = { ...NEW, status: 'SETTLED', openedBy: 'BALANCE_INQUIRY' };
    for (const [kind, amount] of [['CLEARING', 1], ['RETURN', 1], ['AUTHORIZATION_EXPIRY', null], ['AUTHORIZATION_ADVICE', 10], ['RETURN_REVERSAL', null]] as const) {
      const outcome = applyOperation(inquiry, op(kind, amount));
      expect(outcome, kind).toMatchObject({ ok: false, refusal: 'state' });
      if (!outcome.ok) expect(outcome.reason).toContain('balance inquiry');
    }
  });

  it('AUTHORIZATION_ADVICE, RETURN and RETURN_REVERSAL need a DEBIT transaction; a CREDIT one clears and expires', () => {
    const credit: Ledger = { ...CREDIT_NEW, status: 'AUTHORIZED', authorized: 1000 };
    for (const kind of ['AUTHORIZATION_ADVICE', 'RETURN', 'RETURN_REVERSAL'] as const) {
      const outcome = applyOperation({ ...credit, status: kind === 'AUTHORIZATION_ADVICE' ? 'AUTHORIZED' : kind === 'RETURN' ? 'SETTLED' : 'REFUNDED' }, op(kind, 100));
      expect(outcome, kind).toMatchObject({ ok: false, refusal: 'state' });
      if (!outcome.ok) expect(outcome.reason).toContain('needs a DEBIT transaction');
    }
    expect(applyOperation(credit, op('CLEARING', 1000))).toMatchObject({ ok: true, next: { status: 'SETTLED', settled: 1000 } });
    expect(applyOperation(credit, op('AUTHORIZATION_EXPIRY'))).toMatchObject({ ok: true, next: { status: 'EXPIRED' } });
  });

  it('AUTHORIZATION_ADVICE re-sizes the authorized amount to its new total, never below what is settled', () => {
    expect(applyOperation(IN.AUTHORIZED, op('AUTHORIZATION_ADVICE', 1500))).toEqual({ ok: true, amount: 1500, next: { ...IN.AUTHORIZED, authorized: 1500 } });
    expect(applyOperation(IN.AUTHORIZED, op('AUTHORIZATION_ADVICE', 200))).toEqual({ ok: true, amount: 200, next: { ...IN.AUTHORIZED, authorized: 200 } });
    expect(applyOperation(IN.PARTIALLY_SETTLED, op('AUTHORIZATION_ADVICE', 399))).toEqual({ ok: false, refusal: 'amount', reason: 'must be at least the amount already settled, 400' });
    expect(applyOperation(IN.PARTIALLY_SETTLED, op('AUTHORIZATION_ADVICE', 400))).toEqual({ ok: true, amount: 400, next: { ...IN.PARTIALLY_SETTLED, authorized: 400, status: 'SETTLED' } });
  });

  it('a pull reported failed makes a financial authorization EXCEPTION, but no other SETTLED transaction', () => {
    const financial: Ledger = { ...IN.SETTLED, openedBy: 'FINANCIAL_AUTHORIZATION' };
    expect(applyOperation(financial, op('PULL_FAILURE'))).toEqual({ ok: true, amount: 1000, next: { ...financial, status: 'EXCEPTION' } });
    expect(applyOperation(IN.SETTLED, op('PULL_FAILURE'))).toMatchObject({ ok: false, refusal: 'state' });
  });
});

describe('card transaction state machine: projection', () => {
  it('applies the accepted, not yet landed operations in order and skips the ones that will be rejected', () => {
    const pending = [op('AUTHORIZATION', 1000), op('RETURN', 10), op('CLEARING', 400), op('AUTHORIZATION_EXPIRY'), op('RETURN', 100)];
    expect(project(NEW, pending)).toEqual({ ...IN.PARTIALLY_SETTLED, refunded: 100, refundCount: 1 });
    expect(project(IN.SETTLED, [])).toBe(IN.SETTLED);
  });
});

/**
 * A transaction's operations: an authorization (now and then declined), then any operations, mostly
 * clearings and returns of a few round amounts, so that returns often refund in full and sequences
 * reach every status (reversals included).
 */
const amount = fc.constantFrom(0, 100, 200, 300, 500, 1000);
const authorization = fc.record({
  kind: fc.constant<OperationKind>('AUTHORIZATION'),
  amount: fc.constantFrom(300, 500, 1000),
  decline: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: fc.constant('CARD_PAUSED' as const), weight: 1 }),
});
const later: fc.Arbitrary<Operation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constantFrom<OperationKind>('CLEARING', 'RETURN'), amount }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constantFrom<OperationKind>('RETURN_REVERSAL', 'AUTHORIZATION_EXPIRY', 'PULL_CONFIRMATION', 'PULL_FAILURE'), amount: fc.constant(null) }), weight: 3 },
  { arbitrary: authorization, weight: 1 },
);
const operations = fc.tuple(authorization, fc.array(later, { minLength: 1, maxLength: 25 })).map(([first, rest]): Operation[] => [first, ...rest]);

describe('card transaction state machine: any sequence of operations', () => {
  it('keeps the ledger equal to what the accepted operations add up to, and never changes the ledger it is given', () => {
    fc.assert(
      fc.property(operations, (ops) => {
        let state = NEW;
        let settled = 0;
        let settlements = 0;
        const returns: number[] = [];
        let authorized: number | undefined;
        for (const o of ops) {
          const before = state;
          const snapshot = structuredClone(state);
          const outcome = applyOperation(state, o);
          expect(state).toEqual(snapshot);
          if (!outcome.ok) {
            expect(['state', 'amount']).toContain(outcome.refusal);
            continue;
          }
          state = outcome.next;
          if (o.kind === 'AUTHORIZATION') authorized = o.decline ? 0 : o.amount!;
          if (o.kind === 'CLEARING' && o.amount! > 0) (settled += o.amount!), settlements++;
          if (o.kind === 'RETURN') returns.push(o.amount!);
          if (o.kind === 'RETURN_REVERSAL') expect(outcome.amount).toBe(returns.pop());
          // Only an authorization leaves PENDING, and nothing goes back to it; DECLINED and EXPIRED are final but for a pull report.
          expect(state.status === 'PENDING').toBe(false);
          if (before.status === 'DECLINED' || before.status === 'EXPIRED') expect(state).toEqual(before);
        }
        expect(state.authorized).toBe(authorized ?? 0);
        expect([state.settled, state.settlementCount]).toEqual([settled, settlements]);
        expect([state.refunded, state.refundCount]).toEqual([returns.reduce((a, b) => a + b, 0), returns.length]);
        expect(state.refunded).toBeLessThanOrEqual(state.settled);
        // Projecting in two steps is projecting at once: acceptance may validate against any prefix.
        const cut = Math.floor(ops.length / 2);
        expect(project(project(NEW, ops.slice(0, cut)), ops.slice(cut))).toEqual(project(NEW, ops));
        expect(project(NEW, ops)).toEqual(state);
      }),
      { numRuns: 500 },
    );
  });
});
