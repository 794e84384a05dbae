import type { NewJob } from '../../store/jobs-repo.js';
import * as repo from '../../store/payment-transactions-repo.js';
import type { Store } from '../../store/store.js';
import type { ExternalAccountRow } from '../../store/tables/external-accounts.js';
import type { PaymentTransactionRow } from '../../store/tables/payment-transactions.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { isBankAccount, PAYMENT_RAILS, type AccountType } from '../external-accounts/account-types.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import type { Environment } from '../platform/tokens.js';
import { ExternalAccountVerificationRequiredError, NotFoundError, ValidationError, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { recordWebhookEvents, type WebhookEventInput } from '../webhooks/webhook-events.js';
import { BALANCE_UPDATED_EVENT, holdAtCommit, holdIfAvailable, isHoldRefused } from '../accounts/internal-accounts.js';
import { paymentEvent, TRANSFER_SETTLEMENT_JOB, type PaymentType, type TransferSettlementJob } from './payment-lifecycle.js';
import { renderPaymentTransaction, type PaymentTransaction } from './render.js';
import { DELAYED_FAILURE_MS, failsAtOnce, failureReasonOf, transferOutcome } from './transfer-outcomes.js';

export interface TransferInput {
  /** The internal account (transfer-out's source, transfer-in's destination). */
  internalAccountId: string;
  externalAccountId: string;
  amount: number;
  paymentRail?: string | undefined;
  remittanceInformation?: string | undefined;
  purposeOfPayment?: string | undefined;
}

/** Where each account of a request is named, for the 400s. */
const FIELDS = {
  INCOMING: { internal: 'destination.accountId', external: 'source.accountId' },
  OUTGOING: { internal: 'source.accountId', external: 'destination.accountId' },
} as const;

/** Ownership still to be proven: a transfer to or from the account waits for it. */
const AWAITING_OWNERSHIP = new Set(['PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED']);

/**
 * Same-currency transfers between an internal account and an external account of the same owner (a
 * customer, or the platform itself):
 * POST /transfer-in (a pull: credits on completion) and POST /transfer-out (a push: holds the amount
 * at once, debits it on completion). The sandbox's suffix on the external account decides the outcome.
 */
export class TransferService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  transferIn(platformId: string, environment: Environment, input: TransferInput, within?: UnitOfWork): Promise<PaymentTransaction> {
    return this.create(platformId, environment, 'INCOMING', input, within);
  }

  transferOut(platformId: string, environment: Environment, input: TransferInput, within?: UnitOfWork): Promise<PaymentTransaction> {
    return this.create(platformId, environment, 'OUTGOING', input, within);
  }

  /**
   * Checks the accounts (an unknown, foreign or other customer's external account is a 404, as a
   * missing one is), then creates the transaction: FAILED at once for 002, 003 and (out) an
   * available balance below the amount, else PENDING with its settlement job.
   *
   * Every read comes before the internal account's row lock, and a transfer-out takes that lock
   * last, deciding "enough available balance" and writing its hold in one conditional UPDATE
   * (holdIfAvailable); its events, their deliveries and the settlement job follow in one statement.
   * Counted on PostgreSQL (a statement log, BEGIN and COMMIT included): 13 statements, 11 of them
   * after the lock (lock, read, update, insert, ... each a round trip every other transfer-out or
   * landing on the account waited for) -> 9, 3 after the lock (the events, the list positions, COMMIT).
   * Now, without an Idempotency-Key, three round trips in all (the API token, the reads, and the
   * writes with the hold and COMMIT), the account's lock held for the last one only.
   */
  private async create(platformId: string, environment: Environment, type: PaymentType, input: TransferInput, within?: UnitOfWork): Promise<PaymentTransaction> {
    // A transfer-out in a unit of work of its own: its hold is written at commit (holdAtCommit), so
    // on PostgreSQL the account's row lock lasts COMMIT's round trip alone. If the balance no longer
    // covers it by then, nothing was written: it is made again with the hold decided first. Within a
    // request's unit of work (an Idempotency-Key), which a refused commit would lose, the hold is decided first.
    if (type === 'OUTGOING' && within === undefined) {
      try {
        return await this.store.transaction((uow) => this.createIn(uow, platformId, environment, type, input, true));
      } catch (err) {
        if (!isHoldRefused(err)) throw err;
      }
    }
    return this.store.transaction((uow) => this.createIn(uow, platformId, environment, type, input, false), within);
  }

  /** See create; `holdLate`: a transfer-out that the account's balance as read covers has its hold written at commit (holdAtCommit). */
  private async createIn(uow: UnitOfWork, platformId: string, environment: Environment, type: PaymentType, input: TransferInput, holdLate: boolean): Promise<PaymentTransaction> {
    const fields = FIELDS[type];
    // Read without locks, in one statement on PostgreSQL (readTransferParties).
    const { internal, external, customer } = await repo.readTransferParties(uow, platformId, input.internalAccountId, input.externalAccountId);
    if (!internal) throw new NotFoundError('InternalAccount', input.internalAccountId);
    const owner = internal.customer_id;
    // An external account of another customer, or of the platform for a customer's account (and the reverse), is as unknown as a missing one.
    if (!external || external.customer_id !== owner) throw new NotFoundError('ExternalAccount', input.externalAccountId);
    if (AWAITING_OWNERSHIP.has(external.status)) {
      throw new ExternalAccountVerificationRequiredError([{ field: fields.external, message: `is ${external.status}: verify its ownership first (POST .../challenge, .../verify)` }]);
    }
    const errors: FieldError[] = [];
    if (owner !== null && customer?.kyc_status !== 'APPROVED') {
      errors.push({ field: fields.internal, message: `belongs to a customer whose KYC status is ${customer?.kyc_status ?? 'unknown'}; moving money needs APPROVED` });
    }
    if (internal.status !== 'ACTIVE') errors.push({ field: fields.internal, message: `is ${internal.status}; only an ACTIVE account moves money` });
    if (external.status !== 'ACTIVE') errors.push({ field: fields.external, message: `is ${external.status}; only an ACTIVE account moves money` });
    if (external.currency !== internal.currency) {
      errors.push({ field: fields.external, message: `is in ${external.currency} and the internal account in ${internal.currency}: a transfer moves one currency` });
    }
    const rail = railOf(external, input.paymentRail, errors);
    if (errors.length > 0) throw new ValidationError(errors);

    const now = await this.clock.now(platformId, uow);
    const outcome = transferOutcome(external.identifier, environment === 'sandbox');
    const row: repo.PaymentTransactionView = {
      id: newId('Transaction'),
      platform_id: platformId,
      customer_id: owner,
      type,
      direction: type === 'INCOMING' ? 'CREDIT' : 'DEBIT',
      status: failsAtOnce(outcome) ? 'FAILED' : 'PENDING',
      internal_account_id: internal.id,
      external_account_id: external.id,
      external_identifier: external.identifier,
      currency: internal.currency,
      amount: input.amount,
      payment_rail: type === 'OUTGOING' ? rail.rail : null,
      rail_selection_mode: type === 'OUTGOING' ? rail.mode : null,
      remittance_information: input.remittanceInformation ?? null,
      purpose_of_payment: input.purposeOfPayment ?? null,
      outcome,
      failure_reason: failsAtOnce(outcome) ? failureReasonOf(type, outcome) : null,
      refund: null,
      reference: `TRF-${newId('Transaction').slice(-12).toUpperCase()}`,
      receipt_delivery_confirmed_at: null,
      settled_at: null,
      created_at: now,
      updated_at: now,
      platform_customer_id: customer?.platform_customer_id ?? null,
    };
    // Written before the hold, outside the account's lock; a transfer-out the balance does not cover is made FAILED after it.
    const { platform_customer_id: _, ...stored } = row;
    await repo.insertPaymentTransaction(uow, stored satisfies PaymentTransactionRow);
    const events: WebhookEventInput[] = [];
    if (type === 'OUTGOING' && row.status === 'PENDING') {
      const hold = { platformId, accountId: internal.id, platformOwned: owner === null, kind: 'TRANSFER_OUT_HOLD', amount: input.amount, paymentTransactionId: row.id } as const;
      // Decided at commit only when the balance as read covers it: one it does not is most likely refused, and said so now.
      const account = holdLate && Number(internal.available_balance) >= input.amount ? 'AT_COMMIT' : await holdIfAvailable(uow, hold, now);
      if (account === 'AT_COMMIT') {
        events.push(await holdAtCommit(uow, hold, internal, now));
      } else if (account) {
        // Recorded with the transfer's own event (this unit of work moves no other balance).
        events.push({ platformId, type: BALANCE_UPDATED_EVENT, fields: { data: account } });
      } else {
        Object.assign(row, { status: 'FAILED', failure_reason: failureReasonOf(type, 'NO_AVAILABLE_BALANCE') });
        await repo.updatePaymentTransaction(uow.db, row.id, { status: row.status, failure_reason: row.failure_reason });
      }
    }
    const rendered = renderPaymentTransaction(row);
    events.unshift({ platformId, type: paymentEvent(type, row.status), fields: { data: rendered } });
    const jobs: NewJob[] = [];
    if (row.status === 'PENDING') {
      const payload: TransferSettlementJob = { platformId, transactionId: row.id };
      // Due now; a 005 transfer is due DELAYED_FAILURE_MS later on the platform's clock (an advance pulls it forward).
      const delay = outcome === 'DELAYED_FAILURE' ? DELAYED_FAILURE_MS : 0;
      jobs.push({ id: newId('Job'), kind: TRANSFER_SETTLEMENT_JOB, payload, queueKey: row.id, runAt: Date.now() + delay, platformId, platformDueAt: now + delay });
    }
    await recordWebhookEvents(uow, events, now, jobs);
    return rendered;
  }

}

/** The rail of a transfer-out: the one asked for, which the account must reach (else a 400), or the first its type reaches; wallets have none. */
function railOf(external: ExternalAccountRow, asked: string | undefined, errors: FieldError[]): { rail: string | null; mode: 'AUTO' | 'MANUAL' | null } {
  const type = external.account_type as AccountType;
  const rails: readonly string[] = isBankAccount(type) ? PAYMENT_RAILS[type] : [];
  if (asked === undefined) return rails.length === 0 ? { rail: null, mode: null } : { rail: rails[0]!, mode: 'AUTO' };
  if (!rails.includes(asked)) {
    errors.push({ field: 'destination.paymentRail', constraint: { enum: [...rails] }, message: rails.length === 0 ? `an account of type ${type} is paid on no rail` : `must be one of the rails of a ${type}: ${rails.join(', ')}` });
  }
  return { rail: asked, mode: 'MANUAL' };
}
