/**
 * The state machine of a transfer and what each step writes: its ledger entries, its status and
 * its webhooks, in the caller's unit of work. A transfer is PENDING until it lands (COMPLETED or
 * FAILED) or is cancelled (FAILED); only a PENDING one moves, so a landing that runs twice, or
 * after a cancel, changes nothing.
 */
import { lockAccounts } from '../../store/accounts-repo.js';
import { lockPlatformAccount } from '../../store/platform-accounts-repo.js';
import * as repo from '../../store/payment-transactions-repo.js';
import type { PaymentTransactionView } from '../../store/payment-transactions-repo.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { postAll, type Posting } from '../accounts/internal-accounts.js';
import type { Movement } from '../accounts/ledger.js';
import { postToPlatformAccount } from '../accounts/platform-accounts.js';
import { recordWebhookEvents } from '../webhooks/webhook-events.js';
import { renderPaymentTransaction, type Refund } from './render.js';
import { failureReasonOf, type TransferOutcome } from './transfer-outcomes.js';

/** The job that lands a PENDING transfer: due at once, or after DELAYED_FAILURE_MS of platform time for 005. */
export const TRANSFER_SETTLEMENT_JOB = 'transfer.settle';

export interface TransferSettlementJob {
  platformId: string;
  transactionId: string;
}

export type PaymentType = 'INCOMING' | 'OUTGOING';

/** The webhook type of a transaction event: INCOMING_PAYMENT.* or OUTGOING_PAYMENT.*. */
export const paymentEvent = (type: string, what: string): string => `${type === 'INCOMING' ? 'INCOMING_PAYMENT' : 'OUTGOING_PAYMENT'}.${what}`;

/** What a PENDING transfer-out holds: its amount, from creation until it lands or is cancelled. */
export const heldBy = (row: Pick<PaymentTransactionView, 'type' | 'status' | 'amount'>): number => (row.type === 'OUTGOING' && row.status === 'PENDING' ? Number(row.amount) : 0);

/** How a PENDING transfer ends. */
type Ending = { status: 'COMPLETED' } | { status: 'FAILED'; why: TransferOutcome | 'CANCELLED' };

/** The ending the sandbox decided at creation. */
export function endingOf(outcome: TransferOutcome): Ending {
  return outcome === 'SUCCESS' ? { status: 'COMPLETED' } : { status: 'FAILED', why: outcome };
}

/**
 * Ends a PENDING transfer in the caller's unit of work (the transaction row locked first, then its
 * account): a transfer-out's hold is released, and on completion debited; a transfer-in credits on
 * completion. A failed transfer-out's held funds return at once as a COMPLETED refund. Webhooks: the
 * new status, then for a refund OUTGOING_PAYMENT.REFUND_COMPLETED; INTERNAL_ACCOUNT.BALANCE_UPDATED
 * when money moved. Answers the row after, or undefined when it was not PENDING (nothing written).
 */
export async function endTransfer(uow: UnitOfWork, row: PaymentTransactionView, ending: Ending, now: number): Promise<PaymentTransactionView | undefined> {
  if (row.status !== 'PENDING') return undefined;
  const amount = Number(row.amount);
  const movements: Movement[] = [];
  const held = heldBy(row);
  if (held > 0) movements.push({ kind: 'TRANSFER_OUT_HOLD_RELEASE', amount: held });
  if (ending.status === 'COMPLETED') movements.push(row.type === 'OUTGOING' ? { kind: 'TRANSFER_OUT_DEBIT', amount: -amount } : { kind: 'TRANSFER_IN_CREDIT', amount });
  let refund: Refund | undefined;
  if (ending.status === 'FAILED' && held > 0) {
    const reason = ending.why === 'CANCELLED' ? 'USER_CANCELLATION' : ending.why === 'DELAYED_FAILURE' ? 'TIMEOUT' : 'TRANSACTION_FAILED';
    refund = { reference: `${row.reference}-REFUND`, initiatedAt: new Date(now).toISOString(), settledAt: new Date(now).toISOString(), status: 'COMPLETED', reason };
  }
  const after: PaymentTransactionView = {
    ...row,
    status: ending.status,
    failure_reason: ending.status === 'FAILED' ? failureReasonOf(row.type as PaymentType, ending.why) : null,
    refund: refund === undefined ? null : JSON.stringify(refund),
    settled_at: ending.status === 'COMPLETED' ? now : null,
    updated_at: now,
  };
  if (movements.length > 0) await postTransfer(uow, row, movements, now);
  await repo.updatePaymentTransaction(uow.db, row.id, { status: after.status, failure_reason: after.failure_reason, refund: after.refund, settled_at: after.settled_at, updated_at: now });
  const events = [{ platformId: row.platform_id, type: paymentEvent(row.type, ending.status), fields: { data: renderPaymentTransaction(after, refund && { ...refund, status: 'PENDING', settledAt: undefined }) } }];
  if (refund !== undefined) events.push({ platformId: row.platform_id, type: paymentEvent(row.type, 'REFUND_COMPLETED'), fields: { data: renderPaymentTransaction(after) } });
  await recordWebhookEvents(uow, events, now);
  return after;
}

/** Writes a transfer's movements to its internal account (a customer's, or one of the platform's own), locked first. */
export async function postTransfer(uow: UnitOfWork, row: Pick<PaymentTransactionView, 'id' | 'platform_id' | 'customer_id' | 'internal_account_id'>, movements: Movement[], now: number): Promise<void> {
  if (row.customer_id === null) {
    await lockPlatformAccount(uow, row.platform_id, row.internal_account_id);
    await postToPlatformAccount(uow, row.platform_id, row.internal_account_id, movements, row.id, now);
    return;
  }
  await lockAccounts(uow, [row.internal_account_id]);
  const posting: Posting = { platformId: row.platform_id, accountId: row.internal_account_id, movements, paymentTransactionId: row.id };
  await postAll(uow, [posting], now);
}

/** The settlement job, in the worker's commit: ends the transfer as its outcome says, unless it is no longer PENDING. */
export async function landTransfer(uow: UnitOfWork, job: TransferSettlementJob, now: number): Promise<void> {
  const row = await repo.lockPaymentTransaction(uow, job.platformId, job.transactionId);
  if (!row) return;
  await endTransfer(uow, row, endingOf(row.outcome as TransferOutcome), now);
}
