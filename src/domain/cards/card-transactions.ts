/** The card transaction state machine: pure, shared by acceptance (projection) and landing. */

export const CARD_TRANSACTION_STATUSES = ['AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED', 'EXCEPTION', 'EXPIRED', 'DECLINED'] as const;
export type CardTransactionStatus = (typeof CARD_TRANSACTION_STATUSES)[number];
/** Internal only: the authorization is accepted but has not landed, so the transaction is not visible yet. */
export type LedgerStatus = CardTransactionStatus | 'PENDING';

/** Simulator path segment -> the operation kind it records. */
export const SIMULATIONS = {
  authorization: 'AUTHORIZATION',
  balance_inquiry: 'BALANCE_INQUIRY',
  credit_authorization: 'CREDIT_AUTHORIZATION',
  credit_authorization_advice: 'CREDIT_AUTHORIZATION_ADVICE',
  financial_authorization: 'FINANCIAL_AUTHORIZATION',
  financial_credit_authorization: 'FINANCIAL_CREDIT_AUTHORIZATION',
  clearing: 'CLEARING',
  return: 'RETURN',
  authorization_expiry: 'AUTHORIZATION_EXPIRY',
  return_reversal: 'RETURN_REVERSAL',
  authorization_advice: 'AUTHORIZATION_ADVICE',
} as const;
export type SimulationName = keyof typeof SIMULATIONS;
/** The simulators that open a new transaction on the card (the others act on one of its transactions). */
export const OPENING_SIMULATIONS = ['authorization', 'balance_inquiry', 'credit_authorization', 'credit_authorization_advice', 'financial_authorization', 'financial_credit_authorization'] as const;
export type OpeningSimulation = (typeof OPENING_SIMULATIONS)[number];
export type FollowUpSimulation = Exclude<SimulationName, OpeningSimulation>;
export type OpeningKind = (typeof SIMULATIONS)[OpeningSimulation];
const OPENING_KINDS: ReadonlySet<string> = new Set(OPENING_SIMULATIONS.map((n) => SIMULATIONS[n]));
export const isOpening = (kind: string): kind is OpeningKind => OPENING_KINDS.has(kind);

export const DIRECTIONS = ['DEBIT', 'CREDIT'] as const;
export type Direction = (typeof DIRECTIONS)[number];
/** A credit authorization (advice) or a financial credit one credits the card's account; every other transaction debits it. */
export const directionOf = (kind: OpeningKind): Direction => (kind.includes('CREDIT') ? 'CREDIT' : 'DEBIT');
/** Single-message: authorized and settled in one operation. */
const SINGLE_MESSAGE: ReadonlySet<OperationKind> = new Set(['FINANCIAL_AUTHORIZATION', 'FINANCIAL_CREDIT_AUTHORIZATION']);
/**
 * The simulators' kinds, and the issuer's report on the pull an approved authorization made: no
 * simulator makes these, the authorization's descriptor does (`005`: confirmed after a delay;
 * `006`: reported failed).
 */
export type OperationKind = (typeof SIMULATIONS)[SimulationName] | 'PULL_CONFIRMATION' | 'PULL_FAILURE';
export const OPERATION_KINDS: OperationKind[] = [...Object.values(SIMULATIONS), 'PULL_CONFIRMATION', 'PULL_FAILURE'];

/** Why an authorization is declined: Grid's decisioning reasons, and SPEND_LIMIT_EXCEEDED (this service's: the document names none for the limit). */
export const DECLINE_REASONS = ['CARD_PAUSED', 'INSUFFICIENT_FUNDS', 'SPEND_LIMIT_EXCEEDED'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

export interface Ledger {
  status: LedgerStatus;
  /** Absent: DEBIT. */
  direction?: Direction;
  /** The kind of the operation that opened the transaction; absent: AUTHORIZATION. */
  openedBy?: OpeningKind;
  authorized: number;
  settled: number;
  refunded: number;
  settlementCount: number;
  refundCount: number;
  /** The return that made the transaction REFUNDED and the status before it. */
  lastReturn: { amount: number; priorStatus: 'SETTLED' | 'PARTIALLY_SETTLED' } | null;
}

export interface Operation {
  kind: OperationKind;
  /** Minor units; null for expiry and return reversal. */
  amount: number | null;
  /** An AUTHORIZATION that decisioning declines: it lands as DECLINED, holding nothing. */
  decline?: DeclineReason | undefined;
}

export type Outcome =
  /** `amount`: what the operation moved (for expiry the released hold, for a reversal the reversed return). */
  | { ok: true; next: Ledger; amount: number }
  /** `state`: the status (or the direction, or a balance inquiry) refuses the kind (409). `amount`: the amount does not fit (400 on amount). */
  | { ok: false; refusal: 'state' | 'amount'; reason: string };

const NEW = 'a new transaction';
const REQUIRES: Record<OperationKind, string> = {
  AUTHORIZATION: NEW,
  BALANCE_INQUIRY: NEW,
  CREDIT_AUTHORIZATION: NEW,
  CREDIT_AUTHORIZATION_ADVICE: NEW,
  FINANCIAL_AUTHORIZATION: NEW,
  FINANCIAL_CREDIT_AUTHORIZATION: NEW,
  AUTHORIZATION_ADVICE: 'AUTHORIZED or PARTIALLY_SETTLED',
  CLEARING: 'AUTHORIZED or PARTIALLY_SETTLED',
  RETURN: 'SETTLED or PARTIALLY_SETTLED',
  AUTHORIZATION_EXPIRY: 'AUTHORIZED with nothing settled',
  RETURN_REVERSAL: 'REFUNDED',
  PULL_CONFIRMATION: 'approved',
  PULL_FAILURE: 'AUTHORIZED',
};
/** What a kind needs of the transaction's direction, when it needs one. */
const DIRECTION_NEEDED: Partial<Record<OperationKind, Direction>> = { AUTHORIZATION_ADVICE: 'DEBIT', RETURN: 'DEBIT', RETURN_REVERSAL: 'DEBIT' };

const refuse = (state: Ledger, op: Operation): Outcome => ({
  ok: false,
  refusal: 'state',
  reason: `${op.kind} needs the transaction ${REQUIRES[op.kind]}; it is ${state.status}`,
});

/** Applies one operation to a ledger, or says why it does not apply. */
export function applyOperation(state: Ledger, op: Operation): Outcome {
  const amount = op.amount ?? 0;
  const direction = state.direction ?? 'DEBIT';
  const needed = DIRECTION_NEEDED[op.kind];
  if (state.status !== 'PENDING' && needed !== undefined && needed !== direction) {
    return { ok: false, refusal: 'state', reason: `${op.kind} needs a ${needed} transaction; this one is a ${direction} (${state.status})` };
  }
  if (state.openedBy === 'BALANCE_INQUIRY' && !isOpening(op.kind)) {
    return { ok: false, refusal: 'state', reason: `${op.kind} does not apply to a balance inquiry, which moves no money and takes no further operation; it is ${state.status}` };
  }
  if (isOpening(op.kind)) {
    if (state.status !== 'PENDING') return refuse(state, op);
    if (op.decline) return { ok: true, amount, next: { ...state, status: 'DECLINED' } };
    // A balance inquiry is complete as it is approved: SETTLED, with nothing authorized or settled.
    if (op.kind === 'BALANCE_INQUIRY') return { ok: true, amount: 0, next: { ...state, status: 'SETTLED' } };
    if (SINGLE_MESSAGE.has(op.kind)) return { ok: true, amount, next: { ...state, status: 'SETTLED', authorized: amount, settled: amount, settlementCount: 1 } };
    return { ok: true, amount, next: { ...state, status: 'AUTHORIZED', authorized: amount } };
  }
  switch (op.kind) {
    case 'AUTHORIZATION_ADVICE': {
      if (state.status !== 'AUTHORIZED' && state.status !== 'PARTIALLY_SETTLED') return refuse(state, op);
      if (amount < state.settled) return { ok: false, refusal: 'amount', reason: `must be at least the amount already settled, ${state.settled}` };
      // The new total: the hold becomes what of it is not settled; re-sized down to what is settled, nothing is left open.
      return { ok: true, amount, next: { ...state, authorized: amount, status: state.settled > 0 && amount === state.settled ? 'SETTLED' : state.status } };
    }
    case 'PULL_CONFIRMATION':
      // The pull is reported done: the transaction, whatever it became meanwhile, is unchanged.
      if (state.status === 'PENDING' || state.status === 'DECLINED') return refuse(state, op);
      return { ok: true, amount: state.authorized, next: state };
    case 'PULL_FAILURE':
      // Reported failed although the pull went through: EXCEPTION, the hold (or a financial authorization's debit) kept until someone reconciles it.
      if (state.status !== 'AUTHORIZED' && !(state.status === 'SETTLED' && state.openedBy === 'FINANCIAL_AUTHORIZATION')) return refuse(state, op);
      return { ok: true, amount: state.authorized, next: { ...state, status: 'EXCEPTION' } };
    case 'CLEARING': {
      if (state.status !== 'AUTHORIZED' && state.status !== 'PARTIALLY_SETTLED') return refuse(state, op);
      // Amount 0: the authorization expires with nothing settled, exactly as AUTHORIZATION_EXPIRY.
      if (amount === 0) {
        if (state.status !== 'AUTHORIZED' || state.settled !== 0) {
          return { ok: false, refusal: 'state', reason: `CLEARING of amount 0 (expiry) needs the transaction AUTHORIZED with nothing settled; it is ${state.status}` };
        }
        return { ok: true, amount: 0, next: { ...state, status: 'EXPIRED' } };
      }
      // Above the open amount (a tip, over-authorization): settles the transaction, the extra included.
      const settled = state.settled + amount;
      return {
        ok: true,
        amount,
        next: { ...state, settled, settlementCount: state.settlementCount + 1, status: settled >= state.authorized ? 'SETTLED' : 'PARTIALLY_SETTLED' },
      };
    }
    case 'RETURN': {
      if (state.status !== 'SETTLED' && state.status !== 'PARTIALLY_SETTLED') return refuse(state, op);
      const net = state.settled - state.refunded;
      if (amount > net) return { ok: false, refusal: 'amount', reason: `must be at most the net settled amount, ${net}` };
      const refunded = state.refunded + amount;
      const full = refunded === state.settled;
      return {
        ok: true,
        amount,
        next: {
          ...state,
          refunded,
          refundCount: state.refundCount + 1,
          status: full ? 'REFUNDED' : state.status,
          lastReturn: full ? { amount, priorStatus: state.status } : null,
        },
      };
    }
    case 'AUTHORIZATION_EXPIRY':
      if (state.status !== 'AUTHORIZED' || state.settled !== 0) return refuse(state, op);
      return { ok: true, amount: state.authorized, next: { ...state, status: 'EXPIRED' } };
    case 'RETURN_REVERSAL': {
      if (state.status !== 'REFUNDED' || !state.lastReturn) return refuse(state, op);
      const { amount: reversed, priorStatus } = state.lastReturn;
      return {
        ok: true,
        amount: reversed,
        next: { ...state, refunded: state.refunded - reversed, refundCount: state.refundCount - 1, status: priorStatus, lastReturn: null },
      };
    }
  }
}

/**
 * The state a new operation is validated against: the landed state with every accepted, not yet
 * landed operation applied in acceptance order (one that would be rejected is skipped, as it will be).
 */
export function project(landed: Ledger, pending: Operation[]): Ledger {
  let state = landed;
  for (const op of pending) {
    const r = applyOperation(state, op);
    if (r.ok) state = r.next;
  }
  return state;
}
