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
import { creditInternalRecipient } from './internal-recipients.js';
import { renderPaymentTransaction, type Refund } from './render.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import { setQuoteStatusByTransaction } from '../../store/quotes-repo.js';
import { newId } from '../shared/ids.js';
import { failureReasonOf, type QuoteOutcome, type TransferOutcome, type UmaIncomingOutcome } from './transfer-outcomes.js';

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
type Ending = { status: 'COMPLETED' } | { status: 'FAILED'; why: TransferOutcome | QuoteOutcome | UmaIncomingOutcome | 'CANCELLED' | 'REJECTED_BY_PLATFORM' };

/** The ending the sandbox decided at creation (a quote payment that is returned completes first). */
export function endingOf(outcome: TransferOutcome | QuoteOutcome | UmaIncomingOutcome): Ending {
  if (outcome === 'SUCCESS' || outcome === 'LONG_PAYMENT' || outcome === 'RETURNED' || outcome === 'UMA_LONG_PENDING' || outcome === 'AWAITING_APPROVAL') return { status: 'COMPLETED' };
  return { status: 'FAILED', why: outcome === 'USER_CANCELLED' ? 'CANCELLED' : outcome };
}

/** The platform's fee of a quote payment, credited to its own account in the sending currency when the payment completes. */
const feeOf = (row: PaymentTransactionView): number => (row.fee_account_id ? Number(row.platform_fees ?? 0) : 0);

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
  // 007: the payout failed and so did its refund: the held funds left the account and do not come back.
  const lost = ending.status === 'FAILED' && ending.why === 'PAYOUT_AND_REFUND_FAILED';
  if (lost && held > 0) movements.push({ kind: 'TRANSFER_OUT_DEBIT', amount: -amount });
  let refund: Refund | undefined;
  if (ending.status === 'FAILED' && held > 0) {
    const reason = ending.why === 'CANCELLED' ? 'USER_CANCELLATION' : ending.why === 'DELAYED_FAILURE' ? 'TIMEOUT' : 'TRANSACTION_FAILED';
    refund = lost
      ? { reference: `${row.reference}-REFUND`, initiatedAt: new Date(now).toISOString(), status: 'FAILED', reason }
      : { reference: `${row.reference}-REFUND`, initiatedAt: new Date(now).toISOString(), settledAt: new Date(now).toISOString(), status: 'COMPLETED', reason };
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
  const fee = feeOf(row);
  if (ending.status === 'COMPLETED' && fee > 0) await postPlatformFee(uow, row, { kind: 'PLATFORM_FEE_CREDIT', amount: fee }, now);
  await repo.updatePaymentTransaction(uow.db, row.id, { status: after.status, failure_reason: after.failure_reason, refund: after.refund, settled_at: after.settled_at, updated_at: now });
  if (row.quote_id) await setQuoteStatusByTransaction(uow.db, row.id, ending.status, now);
  const events = [{ platformId: row.platform_id, type: paymentEvent(row.type, ending.status), fields: { data: renderPaymentTransaction(after, refund && { ...refund, status: 'PENDING', settledAt: undefined }) } }];
  if (refund !== undefined) events.push({ platformId: row.platform_id, type: paymentEvent(row.type, lost ? 'REFUND_FAILED' : 'REFUND_COMPLETED'), fields: { data: renderPaymentTransaction(after) } });
  await recordWebhookEvents(uow, events, now);
  // A quote paid inside the platform: its recipient credited in this same commit, after the sender's events.
  if (ending.status === 'COMPLETED') await creditInternalRecipient(uow, row, now);
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

/** Books (or reverses) a quote payment's platform fee on the platform's own account in the sending currency. */
async function postPlatformFee(uow: UnitOfWork, row: PaymentTransactionView, movement: Movement, now: number): Promise<void> {
  await lockPlatformAccount(uow, row.platform_id, row.fee_account_id!);
  await postToPlatformAccount(uow, row.platform_id, row.fee_account_id!, [movement], row.id, now);
}

/**
 * A quote payment returned by the receiving bank after it completed (005): COMPLETED becomes FAILED
 * (PAYOUT_RETURNED), the whole sending amount credited back and the platform's fee reversed, with
 * OUTGOING_PAYMENT.FAILED then OUTGOING_PAYMENT.REFUND_COMPLETED. Anything else: nothing written.
 */
export async function returnPayment(uow: UnitOfWork, row: PaymentTransactionView, now: number): Promise<PaymentTransactionView | undefined> {
  if (row.status !== 'COMPLETED' || row.outcome !== 'RETURNED') return undefined;
  const amount = Number(row.amount);
  const refund: Refund = { reference: `${row.reference}-REFUND`, initiatedAt: new Date(now).toISOString(), settledAt: new Date(now).toISOString(), status: 'COMPLETED', reason: 'TRANSACTION_FAILED' };
  const after: PaymentTransactionView = { ...row, status: 'FAILED', failure_reason: failureReasonOf('OUTGOING', 'RETURNED'), refund: JSON.stringify(refund), updated_at: now };
  await postTransfer(uow, row, [{ kind: 'PAYMENT_RETURN_CREDIT', amount }], now);
  const fee = feeOf(row);
  if (fee > 0) await postPlatformFee(uow, row, { kind: 'PLATFORM_FEE_REVERSAL', amount: -fee }, now);
  await repo.updatePaymentTransaction(uow.db, row.id, { status: 'FAILED', failure_reason: after.failure_reason, refund: after.refund, updated_at: now });
  if (row.quote_id) await setQuoteStatusByTransaction(uow.db, row.id, 'FAILED', now);
  await recordWebhookEvents(
    uow,
    [
      { platformId: row.platform_id, type: paymentEvent(row.type, 'FAILED'), fields: { data: renderPaymentTransaction(after, { ...refund, status: 'PENDING', settledAt: undefined }) } },
      { platformId: row.platform_id, type: paymentEvent(row.type, 'REFUND_COMPLETED'), fields: { data: renderPaymentTransaction(after) } },
    ],
    now,
  );
  return after;
}

/**
 * The settlement job, in the worker's commit: ends the transfer as its outcome says, unless it is no
 * longer PENDING; a completed payment to be returned (005) is returned by the same job's next run.
 */
export async function landTransfer(uow: UnitOfWork, job: TransferSettlementJob, now: number): Promise<void> {
  const row = await repo.lockPaymentTransaction(uow, job.platformId, job.transactionId);
  if (!row) return;
  if (row.status === 'COMPLETED') {
    await returnPayment(uow, row, now);
    return;
  }
  // Only the platform's approve or reject ends a payment waiting for it.
  if (row.outcome === 'AWAITING_APPROVAL') return;
  const after = await endTransfer(uow, row, endingOf(row.outcome as TransferOutcome | QuoteOutcome | UmaIncomingOutcome), now);
  if (after?.status === 'COMPLETED' && row.outcome === 'RETURNED') {
    await enqueueJob(uow, { id: newId('Job'), kind: TRANSFER_SETTLEMENT_JOB, payload: job, queueKey: `${row.id}:return`, runAt: Date.now(), platformId: job.platformId, platformDueAt: now }, now);
  }
}
