import { findAccount, findAccountOf } from '../../store/accounts-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import { getExternalAccount } from '../../store/external-accounts-repo.js';
import type { NewJob } from '../../store/jobs-repo.js';
import { findPlatformAccount, insertPlatformAccountsIfAbsent, listPlatformAccounts } from '../../store/platform-accounts-repo.js';
import * as repo from '../../store/payment-transactions-repo.js';
import { lockQuote, setQuoteStatusByTransaction } from '../../store/quotes-repo.js';
import type { Store } from '../../store/store.js';
import type { PaymentTransactionRow } from '../../store/tables/payment-transactions.js';
import type { QuoteRow } from '../../store/tables/quotes.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { accountTypeOf } from '../accounts/account-currencies.js';
import { sandboxUmaAddress } from '../uma/sandbox-uma.js';
import { isBankAccount, PAYMENT_RAILS, type AccountType } from '../external-accounts/account-types.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import type { Environment } from '../platform/tokens.js';
import { renderQuote, statusAt, type Quote, type QuoteDestination, type QuoteSource } from '../quotes/render.js';
import { InvalidStateError, lookupableId, NotFoundError, ValidationError, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { recordWebhookEvents } from '../webhooks/webhook-events.js';
import { balanceUpdatedAtCommit, holdIfAvailable } from '../accounts/internal-accounts.js';
import { paymentEvent, postTransfer, TRANSFER_SETTLEMENT_JOB, type TransferSettlementJob } from './payment-lifecycle.js';
import { internalAccountRecipient, umaCustomerRecipient } from './internal-recipients.js';
import { renderPaymentTransaction, type PaymentTransaction } from './render.js';
import { failureReasonOf, LONG_PAYMENT_MS, quoteOutcome } from './transfer-outcomes.js';

/**
 * POST /quotes/{quoteId}/execute: the quote's OutgoingTransaction (its reserved transactionId),
 * prefunded from the source internal account. It holds the whole sending amount (fees within it)
 * and lands through the transfers' settlement job and state machine (payment-lifecycle.ts): on
 * completion the amount is debited and the platform's fee credited to its own account in the
 * sending currency. The destination account's last three digits decide the outcome (quoteOutcome).
 * A quote paid inside the platform (an internal account, a customer's UMA address) credits its
 * recipient in the same landing commit (internal-recipients.ts).
 */
export class QuotePaymentService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  /**
   * Unknown quote: 404. A quote past expiresAt, or already executed: 409 (currentStatus EXPIRED, or
   * its status). A real-time funded quote is paid by its payment instructions: 400.
   */
  execute(platformId: string, environment: Environment, quoteId: string, within?: UnitOfWork): Promise<Quote> {
    return this.store.transaction(async (uow) => {
      const { quote, source, now } = await this.executable(uow, platformId, quoteId);
      if (source.sourceType !== 'ACCOUNT') {
        throw new ValidationError([{ field: 'quoteId', message: 'names a real-time funded quote: it is executed when its paymentInstructions are paid (POST /sandbox/send), not by execute' }]);
      }
      return (await this.pay(uow, platformId, environment, quote, source.accountId, now)).quote;
    }, within);
  }

  /**
   * POST /quotes with immediatelyExecute: the quote created by `create` and executed in one unit of
   * work (an execution refused leaves no quote). A real-time funded quote executes when its
   * instructions are paid, so it is answered PENDING.
   */
  createAndExecute(platformId: string, environment: Environment, create: (uow: UnitOfWork) => Promise<Quote>, within?: UnitOfWork): Promise<Quote> {
    return this.store.transaction(async (uow) => {
      const quote = await create(uow);
      return quote.source.sourceType === 'ACCOUNT' ? this.execute(platformId, environment, quote.id, uow) : quote;
    }, within);
  }

  /**
   * POST /sandbox/send: pays a real-time funded quote's payment instructions. The funds land in the
   * quote's customer's internal account in the sending currency (the platform's own without one), and
   * the quote is executed from there as a prefunded one. currencyCode must be the sending currency and
   * currencyAmount, when given, the totalSendingAmount (400); the quote's states as execute (404, 409).
   */
  send(platformId: string, environment: Environment, input: { quoteId: string; currencyCode: string; currencyAmount?: number | undefined }, within?: UnitOfWork): Promise<PaymentTransaction> {
    return this.store.transaction(async (uow) => {
      const { quote, source, now } = await this.executable(uow, platformId, input.quoteId);
      const errors: FieldError[] = [];
      if (source.sourceType !== 'REALTIME_FUNDING') errors.push({ field: 'quoteId', message: 'names a quote funded from an internal account: execute it (POST /quotes/{quoteId}/execute)' });
      if (input.currencyCode !== quote.sending_currency) errors.push({ field: 'currencyCode', message: `must be the quote's sending currency, ${quote.sending_currency}` });
      if (input.currencyAmount !== undefined && input.currencyAmount !== Number(quote.total_sending_amount)) {
        errors.push({ field: 'currencyAmount', message: `must be the quote's totalSendingAmount, ${quote.total_sending_amount}` });
      }
      if (errors.length > 0) throw new ValidationError(errors);
      const accountId =
        quote.customer_id === null
          ? await this.platformAccount(uow, platformId, quote.sending_currency, now)
          : (await findAccountOf(uow.db, quote.customer_id, accountTypeOf(quote.sending_currency), quote.sending_currency))?.id;
      if (accountId === undefined) throw new ValidationError([{ field: 'quoteId', message: `the quote's customer holds no ${quote.sending_currency} internal account to receive the funds` }]);
      const amount = Number(quote.total_sending_amount);
      await postTransfer(uow, { id: quote.transaction_id, platform_id: platformId, customer_id: quote.customer_id, internal_account_id: accountId }, [{ kind: 'TRANSFER_IN_CREDIT', amount }], now);
      return (await this.pay(uow, platformId, environment, quote, accountId, now)).transaction;
    }, within);
  }

  /** The quote, locked, PENDING and not past expiresAt on the platform's clock (else 404, 409). */
  private async executable(uow: UnitOfWork, platformId: string, quoteId: string): Promise<{ quote: QuoteRow; source: QuoteSource; now: number }> {
    const quote = lookupableId(quoteId) ? await lockQuote(uow, platformId, quoteId) : undefined;
    if (!quote) throw new NotFoundError('Quote', quoteId);
    const now = await this.clock.now(platformId, uow);
    const status = statusAt(quote, now);
    if (status !== 'PENDING') {
      const why = status === 'EXPIRED' ? `expired at ${new Date(Number(quote.expires_at)).toISOString()}; create a new quote` : `is ${status}: a quote is executed once`;
      throw new InvalidStateError(`Quote ${quoteId} ${why}`, status);
    }
    return { quote, source: JSON.parse(quote.source) as QuoteSource, now };
  }

  /**
   * Creates the quote's OutgoingTransaction from the internal account `sourceAccountId`, in the
   * caller's unit of work. As TransferService.create: every read before the source account's row
   * lock, taken last by the hold (holdIfAvailable: enough available balance decided and the hold
   * written in one statement), then the events and the settlement job in one. Counted on
   * PostgreSQL (POST /quotes/{quoteId}/execute, BEGIN and COMMIT included): 16 statements, 12 of
   * them after that lock -> 13, 4 after it (the events, the balance event, the list positions, COMMIT).
   */
  private async pay(uow: UnitOfWork, platformId: string, environment: Environment, quote: QuoteRow, sourceAccountId: string, now: number): Promise<{ quote: Quote; transaction: PaymentTransaction }> {
    const destination = JSON.parse(quote.destination) as QuoteDestination;
    const external = await payee(uow, platformId, destination, quote.receiving_currency);
    const destinationField = destination.destinationType === 'UMA_ADDRESS' ? 'destination.umaAddress' : 'destination.accountId';

    const internal = await this.findSource(uow, platformId, sourceAccountId);
    if (!internal) throw new NotFoundError('InternalAccount', sourceAccountId);
    const customer = internal.customer_id === null ? undefined : await findCustomer(uow.db, platformId, internal.customer_id);
    const errors: FieldError[] = [];
    if (internal.customer_id !== null && customer?.kyc_status !== 'APPROVED') {
      errors.push({ field: 'source.accountId', message: `belongs to a customer whose KYC status is ${customer?.kyc_status ?? 'unknown'}; moving money needs APPROVED` });
    }
    if (internal.status !== 'ACTIVE') errors.push({ field: 'source.accountId', message: `is ${internal.status}; only an ACTIVE account moves money` });
    if (external.status !== 'ACTIVE') errors.push({ field: destinationField, message: `is ${external.status}; only an ACTIVE account is paid` });
    if (external.id === internal.id) errors.push({ field: destinationField, message: 'names the source account: a quote pays another account' });
    if (errors.length > 0) throw new ValidationError(errors);

    const asked = destination.destinationType === 'ACCOUNT' ? destination.paymentRail : undefined;
    const type = external.account_type as AccountType | null;
    const rails: readonly string[] = type !== null && isBankAccount(type) ? PAYMENT_RAILS[type] : [];
    const amount = Number(quote.total_sending_amount);
    const platformFees = Number(quote.platform_fees_included);
    const outcome = external.uma === null ? quoteOutcome(external.identifier, environment === 'sandbox') : external.uma;
    const failsAtOnce = outcome === 'QUOTE_EXECUTION_FAILED';
    const row: repo.PaymentTransactionView = {
      id: quote.transaction_id,
      platform_id: platformId,
      customer_id: internal.customer_id,
      type: 'OUTGOING',
      direction: 'DEBIT',
      status: failsAtOnce ? 'FAILED' : 'PENDING',
      internal_account_id: internal.id,
      external_account_id: external.id,
      external_identifier: external.identifier,
      currency: quote.sending_currency,
      amount,
      payment_rail: asked ?? rails[0] ?? null,
      rail_selection_mode: asked !== undefined ? 'MANUAL' : rails.length > 0 ? 'AUTO' : null,
      remittance_information: descriptionOf(quote.request),
      purpose_of_payment: null,
      outcome,
      failure_reason: failsAtOnce ? failureReasonOf('OUTGOING', 'QUOTE_EXECUTION_FAILED') : null,
      refund: null,
      reference: `QTE-${quote.transaction_id.slice(-12).toUpperCase()}`,
      receipt_delivery_confirmed_at: null,
      settled_at: null,
      created_at: now,
      updated_at: now,
      quote_id: quote.id,
      received_currency: quote.receiving_currency,
      received_amount: Number(quote.total_receiving_amount),
      exchange_rate: quote.exchange_rate,
      fees: Number(quote.fees_included),
      platform_fees: platformFees,
      fee_account_id: platformFees > 0 ? await this.platformAccount(uow, platformId, quote.sending_currency, now) : null,
      counterparty_uma: external.counterpartyUma,
      platform_customer_id: customer?.platform_customer_id ?? null,
    };
    // Written before the hold, outside the account's lock; a payment the balance does not cover is made FAILED after it.
    const { platform_customer_id: _, ...stored } = row;
    await repo.insertPaymentTransaction(uow, stored satisfies PaymentTransactionRow);
    await setQuoteStatusByTransaction(uow.db, row.id, row.status === 'FAILED' ? 'FAILED' : 'PROCESSING', now);
    if (row.status === 'PENDING') {
      const hold = { platformId, accountId: internal.id, platformOwned: internal.customer_id === null, kind: 'TRANSFER_OUT_HOLD', amount, paymentTransactionId: row.id } as const;
      const account = await holdIfAvailable(uow, hold, now);
      // At the commit: POST /sandbox/send credited the account in this unit of work already, and one event tells the balance both leave.
      if (account) balanceUpdatedAtCommit(uow, platformId, account, now);
      else {
        Object.assign(row, { status: 'FAILED', failure_reason: failureReasonOf('OUTGOING', 'QUOTE_EXECUTION_FAILED') });
        await repo.updatePaymentTransaction(uow.db, row.id, { status: row.status, failure_reason: row.failure_reason });
        await setQuoteStatusByTransaction(uow.db, row.id, 'FAILED', now);
      }
    }
    const failed = row.status === 'FAILED';
    const jobs: NewJob[] = [];
    if (!failed) {
      const payload: TransferSettlementJob = { platformId, transactionId: row.id };
      // Due now; a 003 long payment LONG_PAYMENT_MS later on the platform's clock (an advance pulls it forward).
      const delay = outcome === 'LONG_PAYMENT' || outcome === 'UMA_LONG_PENDING' ? LONG_PAYMENT_MS : 0;
      jobs.push({ id: newId('Job'), kind: TRANSFER_SETTLEMENT_JOB, payload, queueKey: row.id, runAt: Date.now() + delay, platformId, platformDueAt: now + delay });
    }
    await recordWebhookEvents(uow, [{ platformId, type: paymentEvent('OUTGOING', row.status), fields: { data: renderPaymentTransaction(row) } }], now, jobs);
    return { quote: renderQuote({ ...quote, status: failed ? 'FAILED' : 'PROCESSING', updated_at: now }, now), transaction: renderPaymentTransaction(row) };
  }

  /** The source internal account, read without a lock (see pay): a customer's, or one of the platform's own (customer_id null). */
  private async findSource(uow: UnitOfWork, platformId: string, id: string) {
    const customers = await findAccount(uow.db, platformId, id);
    if (customers) return customers;
    const own = await findPlatformAccount(uow.db, platformId, id);
    return own && { ...own, customer_id: null };
  }

  /** The platform's own account in the currency its fee is booked to, opened if it was never listed. */
  private async platformAccount(uow: UnitOfWork, platformId: string, currency: string, now: number): Promise<string> {
    const [existing] = await listPlatformAccounts(uow.db, platformId, { currency });
    if (existing) return existing.id;
    await insertPlatformAccountsIfAbsent(uow.db, [
      { id: newId('InternalAccount'), platform_id: platformId, type: accountTypeOf(currency), status: 'ACTIVE', currency, available_balance: 0, total_balance: 0, created_at: now, updated_at: now },
    ]);
    return (await listPlatformAccounts(uow.db, platformId, { currency }))[0]!.id;
  }
}

/**
 * Who a quote pays: an external account of the platform, a sandbox UMA address (its id the address,
 * its outcome as the guide says), or inside the platform (internal-recipients.ts) an internal account
 * of the platform or the account in the receiving currency of the customer with that UMA address
 * (its id that internal account; it succeeds). Anything else: 404, as an id that does not exist.
 */
async function payee(
  uow: UnitOfWork,
  platformId: string,
  destination: QuoteDestination,
  receivingCurrency: string,
): Promise<{ id: string; identifier: string | null; status: string; account_type: string | null; uma: null | 'SUCCESS' | 'UMA_LONG_PENDING' | 'UMA_COMPLIANCE_FAILED'; counterpartyUma: string | null }> {
  if (destination.destinationType === 'UMA_ADDRESS') {
    const sandbox = sandboxUmaAddress(destination.umaAddress);
    if (sandbox) {
      const uma = sandbox.behaviour === 'LONG_PENDING' ? 'UMA_LONG_PENDING' : sandbox.behaviour === 'COMPLIANCE_FAILURE' ? 'UMA_COMPLIANCE_FAILED' : 'SUCCESS';
      return { id: sandbox.address, identifier: sandbox.address, status: 'ACTIVE', account_type: null, uma, counterpartyUma: sandbox.address };
    }
    const customer = await umaCustomerRecipient(uow.db, platformId, destination.umaAddress, receivingCurrency);
    if (!customer) throw new NotFoundError('UmaAddress', destination.umaAddress);
    return { id: customer.accountId, identifier: destination.umaAddress, status: customer.status, account_type: null, uma: 'SUCCESS', counterpartyUma: destination.umaAddress };
  }
  const external = await getExternalAccount(uow, platformId, destination.accountId);
  if (external) return { ...external, uma: null, counterpartyUma: null };
  const internal = await internalAccountRecipient(uow.db, platformId, destination.accountId);
  if (!internal) throw new NotFoundError('InternalAccount', destination.accountId);
  if (internal.currency !== receivingCurrency) {
    throw new ValidationError([{ field: 'destination.accountId', message: `is an internal account in ${internal.currency}, not the quote's receiving currency ${receivingCurrency}` }]);
  }
  return { id: internal.accountId, identifier: null, status: internal.status, account_type: null, uma: 'SUCCESS', counterpartyUma: null };
}

function descriptionOf(request: string): string | null {
  const description = (JSON.parse(request) as { description?: unknown }).description;
  return typeof description === 'string' ? description : null;
}
