/**
 * The state machine of a transfer and what each step writes: its ledger entries, its status and
 * its webhooks, in the caller's unit of work. A transfer is PENDING until it lands (COMPLETED or
 * FAILED) or is cancelled (FAILED); only a PENDING one moves, so a landing that runs twice, or
 * after a cancel, changes nothing.
 */
import { lockAccounts } from '../../store/accounts-repo.js';
import { lockPlatformAccounts } from '../../store/platform-accounts-repo.js';
import * as repo from '../../store/payment-transactions-repo.js';
import type { PaymentTransactionChange, PaymentTransactionView } from '../../store/payment-transactions-repo.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { postAll, postAllAtCommit, type Posting } from '../accounts/internal-accounts.js';
import type { InternalAccountRow } from '../../store/tables/internal-accounts.js';
import type { Movement } from '../accounts/ledger.js';
import { postAllToPlatformAccounts } from '../accounts/platform-accounts.js';
import { recordWebhookEvents, type WebhookEventInput } from '../webhooks/webhook-events.js';
import { creditInternalRecipient } from './internal-recipients.js';
import { renderPaymentTransaction, type Refund } from './render.js';
import type { NewJob } from '../../store/jobs-repo.js';
import { setQuoteStatusesByTransaction } from '../../store/quotes-repo.js';
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
 * What ending transfers writes, gathered as each is decided and written at the end in a few
 * statements whatever their number (see landTransfers): the transactions' rows, their quotes, their
 * webhook events with the follow-up jobs, then the ledger of their accounts, locked once.
 */
export class TransferWrites {
  private readonly postings: Posting[] = [];
  private readonly platformPostings: (Posting & { paymentTransactionId: string })[] = [];
  /** By transaction: its latest change (a batch may move one twice). */
  private readonly changes = new Map<string, PaymentTransactionChange>();
  private readonly quotes = new Map<string, string>();
  readonly events: WebhookEventInput[] = [];
  readonly jobs: NewJob[] = [];

  /** Movements of a transfer's internal account (a customer's, or one of the platform's own) or of a platform account (`accountId`, its fee account). */
  post(row: Pick<PaymentTransactionView, 'id' | 'platform_id' | 'customer_id' | 'internal_account_id'>, movements: Movement[], accountId = row.internal_account_id, platformOwned = row.customer_id === null): void {
    const posting = { platformId: row.platform_id, accountId, movements, paymentTransactionId: row.id };
    if (platformOwned) this.platformPostings.push(posting);
    else this.postings.push(posting);
  }

  update(change: PaymentTransactionChange): void {
    this.changes.delete(change.id);
    this.changes.set(change.id, change);
  }

  quoteStatus(transactionId: string, status: string): void {
    this.quotes.delete(transactionId);
    this.quotes.set(transactionId, status);
  }

  /**
   * Every statement from an account's lock to COMMIT is time every other transfer or landing on
   * the account waits (on PostgreSQL, a round trip each). The postings come first, as the writes
   * whose answer is read (the balances after); the others are deferred (UnitOfWork.write) and go
   * out with COMMIT, so the lock is held for the postings' round trip and COMMIT's. One account is
   * locked by its posting itself; several are locked first, in id order (customers' accounts, then
   * the platform's), so that two batches cannot deadlock on them.
   */
  async write(uow: UnitOfWork, now: number, read: ReadonlyMap<string, InternalAccountRow> = new Map()): Promise<void> {
    const customers = [...new Set(this.postings.map((p) => p.accountId))];
    const platforms = [...new Set(this.platformPostings.map((p) => p.accountId))];
    // One customer's account and no other: its postings go out with COMMIT (PostgreSQL), so the
    // account's lock is held for none of this unit of work's round trips but its last (see
    // postAllAtCommit). Several accounts are locked first, in id order, as below.
    if (customers.length === 1 && platforms.length === 0 && (await postAllAtCommit(uow, this.postings, read, now))) {
      await this.writeRest(uow, now);
      return;
    }
    if (customers.length + platforms.length > 1) {
      await lockAccounts(uow, customers);
      await lockPlatformAccounts(uow, platforms);
    }
    if (this.postings.length > 0) await postAll(uow, this.postings, now);
    await postAllToPlatformAccounts(uow, this.platformPostings, now);
    await this.writeRest(uow, now);
  }

  /** The transactions, their quotes, their events and follow-up jobs: deferred writes. */
  private async writeRest(uow: UnitOfWork, now: number): Promise<void> {
    await repo.updatePaymentTransactions(uow, [...this.changes.values()]);
    await setQuoteStatusesByTransaction(uow, [...this.quotes].map(([transactionId, status]) => ({ transactionId, status })), now);
    await recordWebhookEvents(uow, this.events, now, this.jobs);
  }
}

/**
 * Ends a PENDING transfer in the caller's unit of work (the transaction row locked first, then its
 * account): a transfer-out's hold is released, and on completion debited; a transfer-in credits on
 * completion. A failed transfer-out's held funds return at once as a COMPLETED refund. Webhooks: the
 * new status, then for a refund OUTGOING_PAYMENT.REFUND_COMPLETED; INTERNAL_ACCOUNT.BALANCE_UPDATED
 * when money moved. Answers the row after, or undefined when it was not PENDING (nothing written).
 * `writes`: a batch's (landTransfers), written by its caller; without it, written here.
 */
export async function endTransfer(uow: UnitOfWork, row: PaymentTransactionView, ending: Ending, now: number, writes?: TransferWrites): Promise<PaymentTransactionView | undefined> {
  if (row.status !== 'PENDING') return undefined;
  const batch = writes ?? new TransferWrites();
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
  if (movements.length > 0) batch.post(row, movements);
  const fee = feeOf(row);
  if (ending.status === 'COMPLETED' && fee > 0) postPlatformFee(batch, row, { kind: 'PLATFORM_FEE_CREDIT', amount: fee });
  batch.update({ id: row.id, status: after.status, failure_reason: after.failure_reason, refund: after.refund, settled_at: after.settled_at, updated_at: now });
  if (row.quote_id) batch.quoteStatus(row.id, ending.status);
  batch.events.push({ platformId: row.platform_id, type: paymentEvent(row.type, ending.status), fields: { data: renderPaymentTransaction(after, refund && { ...refund, status: 'PENDING', settledAt: undefined }) } });
  if (refund !== undefined) batch.events.push({ platformId: row.platform_id, type: paymentEvent(row.type, lost ? 'REFUND_FAILED' : 'REFUND_COMPLETED'), fields: { data: renderPaymentTransaction(after) } });
  // A quote paid inside the platform: its recipient credited in this same commit, after the sender's events.
  if (ending.status === 'COMPLETED') await creditInternalRecipient(uow, row, now, batch);
  if (!writes) await batch.write(uow, now);
  return after;
}

/** Writes a transfer's movements to its internal account (a customer's, or one of the platform's own), locked first. */
export async function postTransfer(uow: UnitOfWork, row: Pick<PaymentTransactionView, 'id' | 'platform_id' | 'customer_id' | 'internal_account_id'>, movements: Movement[], now: number): Promise<void> {
  const writes = new TransferWrites();
  writes.post(row, movements);
  await writes.write(uow, now);
}

/** Books (or reverses) a quote payment's platform fee on the platform's own account in the sending currency. */
function postPlatformFee(writes: TransferWrites, row: PaymentTransactionView, movement: Movement): void {
  writes.post(row, [movement], row.fee_account_id!, true);
}

/**
 * A quote payment returned by the receiving bank after it completed (005): COMPLETED becomes FAILED
 * (PAYOUT_RETURNED), the whole sending amount credited back and the platform's fee reversed, with
 * OUTGOING_PAYMENT.FAILED then OUTGOING_PAYMENT.REFUND_COMPLETED. Anything else: nothing written.
 */
export async function returnPayment(uow: UnitOfWork, row: PaymentTransactionView, now: number, writes?: TransferWrites): Promise<PaymentTransactionView | undefined> {
  if (row.status !== 'COMPLETED' || row.outcome !== 'RETURNED') return undefined;
  const batch = writes ?? new TransferWrites();
  const amount = Number(row.amount);
  const refund: Refund = { reference: `${row.reference}-REFUND`, initiatedAt: new Date(now).toISOString(), settledAt: new Date(now).toISOString(), status: 'COMPLETED', reason: 'TRANSACTION_FAILED' };
  const after: PaymentTransactionView = { ...row, status: 'FAILED', failure_reason: failureReasonOf('OUTGOING', 'RETURNED'), refund: JSON.stringify(refund), updated_at: now };
  batch.post(row, [{ kind: 'PAYMENT_RETURN_CREDIT', amount }]);
  const fee = feeOf(row);
  if (fee > 0) postPlatformFee(batch, row, { kind: 'PLATFORM_FEE_REVERSAL', amount: -fee });
  batch.update({ id: row.id, status: 'FAILED', failure_reason: after.failure_reason, refund: after.refund, settled_at: row.settled_at, updated_at: now });
  if (row.quote_id) batch.quoteStatus(row.id, 'FAILED');
  batch.events.push(
    { platformId: row.platform_id, type: paymentEvent(row.type, 'FAILED'), fields: { data: renderPaymentTransaction(after, { ...refund, status: 'PENDING', settledAt: undefined }) } },
    { platformId: row.platform_id, type: paymentEvent(row.type, 'REFUND_COMPLETED'), fields: { data: renderPaymentTransaction(after) } },
  );
  if (!writes) await batch.write(uow, now);
  return after;
}

/**
 * The settlement job, in the worker's commit: ends the transfer as its outcome says, unless it is no
 * longer PENDING; a completed payment to be returned (005) is returned by the same job's next run.
 */
export async function landTransfer(uow: UnitOfWork, job: TransferSettlementJob, now: number): Promise<void> {
  await landTransfers(uow, [job], now);
}

/**
 * {@link landTransfer} for a batch of settlement jobs of one platform (its clock's `now`), in job
 * order, with the same effects as landing them one after another, in a dozen statements whatever
 * their number: their transactions locked in one, decided in memory (a job whose transaction is no
 * longer PENDING, or not to be returned, changes nothing), then written by {@link TransferWrites}.
 *
 * Why: on PostgreSQL every statement is a round trip, and each landing held its internal account's
 * row lock from its posting to its commit, so every transfer-out and landing on one funded account
 * waited its turn. Counted (PostgreSQL's statements, BEGIN and COMMIT included): a landing was 11,
 * 8 of them after the account's lock, and 9 landed one by one in one commit 58 (55 after it); now
 * one is 8, 3 after the lock (the ledger is written last, its balances and entries in one
 * statement that takes the lock: then the balance event, the list positions, COMMIT), and 9
 * together are 8 as well.
 */
export async function landTransfers(uow: UnitOfWork, jobs: readonly TransferSettlementJob[], now: number): Promise<void> {
  const locked = await repo.lockPaymentTransactions(uow, [...new Set(jobs.map((j) => j.transactionId))]);
  const rows = new Map(locked.rows.map((r) => [r.id, r]));
  const writes = new TransferWrites();
  for (const job of jobs) {
    const row = rows.get(job.transactionId);
    if (!row || row.platform_id !== job.platformId) continue;
    const after = await landOne(uow, row, job, now, writes);
    if (after) rows.set(row.id, after);
  }
  await writes.write(uow, now, locked.accounts);
}

/** One job of landTransfers: the transaction after, or undefined when nothing changed. */
async function landOne(uow: UnitOfWork, row: PaymentTransactionView, job: TransferSettlementJob, now: number, writes: TransferWrites): Promise<PaymentTransactionView | undefined> {
  if (row.status === 'COMPLETED') return returnPayment(uow, row, now, writes);
  // Only the platform's approve or reject ends a payment waiting for it.
  if (row.outcome === 'AWAITING_APPROVAL') return undefined;
  const after = await endTransfer(uow, row, endingOf(row.outcome as TransferOutcome | QuoteOutcome | UmaIncomingOutcome), now, writes);
  if (after?.status === 'COMPLETED' && row.outcome === 'RETURNED') {
    writes.jobs.push({ id: newId('Job'), kind: TRANSFER_SETTLEMENT_JOB, payload: job, queueKey: `${row.id}:return`, runAt: Date.now(), platformId: job.platformId, platformDueAt: now });
  }
  return after;
}
