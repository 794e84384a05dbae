/**
 * The Grid document's roll-ups of a card transaction's events, computed from its operations in
 * acceptance order: pulls on the funding source, settlements (clearings) and refunds (returns).
 */
import type { CardOperationRow } from '../../store/tables/cards.js';
import type { Direction } from './card-transactions.js';

export interface CardPullSummary {
  /** Pulls made: the authorization's, then one per clearing that settled above the authorized amount (a post-hoc pull). */
  count: number;
  /** What the pulls took; a pull reported failed counts 0. */
  totalAmount: number;
  /** Pulls whose outcome is not reported yet. */
  pendingCount: number;
}

export interface CardEventSummary {
  count: number;
  totalAmount: number;
}

export interface CardSummaries {
  pullSummary: CardPullSummary;
  settlementSummary: CardEventSummary;
  refundSummary: CardEventSummary;
}

/**
 * `declineReason`: the transaction's, when declined. An INSUFFICIENT_FUNDS decline is a pull that
 * failed (counted, amount 0); a CARD_PAUSED or SPEND_LIMIT_EXCEEDED one never tried to pull.
 * A CREDIT transaction pulls nothing: its clearings (or its single message) are its settlements.
 * A balance inquiry pulls and settles nothing. A financial (single-message) authorization is its
 * pull and its settlement at once; an authorization advice re-sizes the authorization's pull.
 */
export function summariesOf(declineReason: string | null, operations: CardOperationRow[], direction: Direction = 'DEBIT'): CardSummaries {
  const pull = { count: 0, totalAmount: 0, pendingCount: 0 };
  const settlement = { count: 0, totalAmount: 0 };
  const refund = { count: 0, totalAmount: 0 };
  let authorized = 0;
  for (const op of operations) {
    const amount = op.amount ?? 0;
    const landed = op.status === 'LANDED';
    switch (op.kind) {
      case 'AUTHORIZATION':
      case 'FINANCIAL_AUTHORIZATION':
        if (landed) {
          authorized = amount;
          pull.count += 1;
          pull.totalAmount += amount;
          if (op.kind === 'FINANCIAL_AUTHORIZATION') {
            settlement.count += 1;
            settlement.totalAmount += amount;
          }
        } else if (op.status === 'REJECTED' && declineReason === 'INSUFFICIENT_FUNDS') {
          pull.count += 1;
        }
        break;
      case 'CREDIT_AUTHORIZATION':
      case 'CREDIT_AUTHORIZATION_ADVICE':
        if (landed) authorized = amount;
        break;
      case 'FINANCIAL_CREDIT_AUTHORIZATION':
        if (landed) {
          authorized = amount;
          settlement.count += 1;
          settlement.totalAmount += amount;
        }
        break;
      case 'AUTHORIZATION_ADVICE':
        if (landed) {
          pull.totalAmount += amount - authorized;
          authorized = amount;
        }
        break;
      case 'PULL_CONFIRMATION':
      case 'PULL_FAILURE':
        if (op.status === 'PENDING') pull.pendingCount += 1;
        if (landed && op.kind === 'PULL_FAILURE') pull.totalAmount -= authorized;
        break;
      case 'CLEARING':
        if (landed && amount > 0) {
          const above = Math.max(settlement.totalAmount, authorized);
          const extra = Math.max(settlement.totalAmount + amount - above, 0);
          settlement.count += 1;
          settlement.totalAmount += amount;
          if (extra > 0 && direction === 'DEBIT') {
            pull.count += 1;
            pull.totalAmount += extra;
          }
        }
        break;
      case 'RETURN':
        if (landed) {
          refund.count += 1;
          refund.totalAmount += amount;
        }
        break;
      case 'RETURN_REVERSAL':
        if (landed) {
          refund.count -= 1;
          refund.totalAmount -= amount;
        }
        break;
    }
  }
  return { pullSummary: pull, settlementSummary: settlement, refundSummary: refund };
}
