import { hkdfSync } from 'node:crypto';
import type { Config } from './config.js';
import { JOBS_WAKEUP_CHANNEL } from './store/jobs-repo.js';
import { migrateToLatest } from './store/migrator.js';
import { loadOrCreateSecret } from './store/settings-repo.js';
import { openStore, type Store } from './store/store.js';
import { BeneficialOwnerService } from './domain/customers/beneficial-owners.js';
import { CardReveals } from './domain/cards/card-reveals.js';
import { FormSubmissions } from './domain/platform/form-submissions.js';
import { CardSimulations } from './domain/cards/card-simulations.js';
import { CardService } from './domain/cards/cards.js';
import { BulkImportService } from './domain/customers/bulk-imports.js';
import { bodyCheck } from './http/validation.js';
import { CreateCustomerBody } from './schemas/customers.js';
import { ContactVerificationService } from './domain/customers/contact-verification.js';
import { CustomerService } from './domain/customers/customers.js';
import { ExternalAccountService } from './domain/external-accounts/external-accounts.js';
import { OwnershipVerification } from './domain/external-accounts/ownership-verification.js';
import { PaymentTransactionService } from './domain/payments/payment-transactions.js';
import { TransferService } from './domain/payments/transfers.js';
import { QuotePaymentService } from './domain/payments/quote-payments.js';
import { UmaReceiveService } from './domain/payments/uma-receive.js';
import { DocumentService } from './domain/documents/documents.js';
import { IdempotencyKeys } from './http/idempotency-keys.js';
import { InternalAccountService } from './domain/accounts/internal-accounts.js';
import { PlatformAccountService } from './domain/accounts/platform-accounts.js';
import { KycService } from './domain/customers/kyc.js';
import { KycLinks } from './domain/customers/kyc-links.js';
import { Cursors } from './domain/shared/pagination.js';
import { PlatformConfigService } from './domain/platform/platform-config.js';
import { CLOCK_CHANNEL, PlatformClock } from './domain/platform/platform-clock.js';
import { SandboxClockService } from './domain/platform/sandbox-clock.js';
import { TokenService } from './domain/platform/tokens.js';
import { VerificationService } from './domain/verifications/verifications.js';
import { WebhookEventLog } from './domain/webhooks/webhook-event-log.js';
import { WebhookResends } from './domain/webhooks/webhook-resends.js';
import { SignedDeliveries } from './domain/webhooks/signed-deliveries.js';
import { signedHeaders } from './jobs/webhook-signature.js';
import { RequestLog } from './domain/request-logs/request-log.js';
import { WebhookTargetPolicy } from './domain/webhooks/webhook-targets.js';
import { noWebhookSender, type SendWebhook } from './domain/webhooks/webhook-sending.js';
import { ExchangeRateService } from './domain/fx/exchange-rates.js';
import { QuoteService } from './domain/quotes/quotes.js';
import { ReceiverLookups } from './domain/uma/receivers.js';
import { InvitationService } from './domain/uma/invitations.js';
import { WithdrawalFees } from './domain/crypto/withdrawal-fees.js';

/** Every domain service, built once per process over one store. */
export interface Services {
  config: Config;
  store: Store;
  cursors: Cursors;
  tokens: TokenService;
  customers: CustomerService;
  /** The sandbox's KYC/KYB decisions. */
  kyc: KycService;
  /** Hosted KYC/KYB links: single-use signed URLs to the sandbox's verification page. */
  kycLinks: KycLinks;
  beneficialOwners: BeneficialOwnerService;
  /** Email and phone verification codes (POST /customers/{id}/verify-email, ...). */
  contactVerification: ContactVerificationService;
  /** KYC/KYB submissions (POST /verifications). */
  verifications: VerificationService;
  documents: DocumentService;
  /** CSV imports of customers, run by the worker batch by batch. */
  bulkImports: BulkImportService;
  cards: CardService;
  cardSimulations: CardSimulations;
  /** Sandbox card reveals: single-use signed URLs to a page with the card's details. */
  cardReveals: CardReveals;
  formSubmissions: FormSubmissions;
  internalAccounts: InternalAccountService;
  externalAccounts: ExternalAccountService;
  /** Ownership challenges of self-custody wallet external accounts. */
  ownershipVerification: OwnershipVerification;
  /** The platform's own internal accounts (GET /platform/internal-accounts). */
  platformAccounts: PlatformAccountService;
  /** POST /transfer-in and /transfer-out. */
  transfers: TransferService;
  quotePayments: QuotePaymentService;
  umaReceive: UmaReceiveService;
  /** Every kind of transaction read together, and the operations on one (confirm, approve, reject, cancel). */
  transactions: PaymentTransactionService;
  platformConfig: PlatformConfigService;
  /** Each platform's time (the sandbox clock): `await clock.now(platformId)` for every timestamp written for a platform. */
  clock: PlatformClock;
  /** Reading and advancing the sandbox clock; expiring authorizations. */
  sandboxClock: SandboxClockService;
  webhookEvents: WebhookEventLog;
  webhookResends: WebhookResends;
  signedDeliveries: SignedDeliveries;
  requestLogs: RequestLog;
  /** Idempotency-Key records: first answers kept for replay. */
  idempotencyKeys: IdempotencyKeys;
  /** Signs the console's session cookies; derived from the stored cursor key, so every process shares it. */
  consoleSessionKey: Buffer;
  /** The sandbox's exchange rates and the rates a platform set (GET /exchange-rates). */
  exchangeRates: ExchangeRateService;
  quotes: QuoteService;
  /** GET /receiver/uma/{address} and /receiver/external-account/{id}. */
  receiverLookups: ReceiverLookups;
  invitations: InvitationService;
  withdrawalFees: WithdrawalFees;
  /** Outbound webhook HTTP, given by the process (jobs/webhook-sender.ts); shared by the worker and the test route. */
  sendWebhook: SendWebhook;
}

/** The server secrets kept in the settings table, loaded once at start-up. */
export interface ServerKeys {
  cursorKey: Buffer;
  cardRevealKey: Buffer;
}

export function createServices(config: Config, store: Store, keys: ServerKeys, sendWebhook: SendWebhook = noWebhookSender): Services {
  const cursors = new Cursors(keys.cursorKey);
  // A commit that enqueued jobs wakes this process's worker (it listens itself) and, on PostgreSQL, every other process's.
  const wakeups = store.wakeups;
  if (wakeups) store.onJobsEnqueued(() => wakeups.notify(JOBS_WAKEUP_CHANNEL));
  const clock = new PlatformClock(store);
  const platformConfig = new PlatformConfigService(store, WebhookTargetPolicy.forServer(config), config.sandboxAuthorizationTtlMs, clock);
  // Another process advanced a clock: offsets are read again on next use.
  wakeups?.listen(CLOCK_CHANNEL, () => clock.forget());
  const customers = new CustomerService(store, cursors, clock);
  const documents = new DocumentService(store, clock, cursors);
  const exchangeRates = new ExchangeRateService(store, clock);
  return {
    config,
    store,
    cursors,
    tokens: new TokenService(store, cursors, clock),
    customers,
    // Each row is checked by POST /customers' own schema.
    bulkImports: new BulkImportService(store, clock, customers, bodyCheck(CreateCustomerBody), config.bulkImportBatchRows),
    kyc: new KycService(store, clock),
    kycLinks: new KycLinks(store, clock, Buffer.from(hkdfSync('sha256', keys.cardRevealKey, '', 'kyc-link', 32)), config.kycLinkTtlMs),
    contactVerification: new ContactVerificationService(store, clock, config.contactCodeTtlMs),
    beneficialOwners: new BeneficialOwnerService(store, cursors, clock, config.ownerPageCacheBytes),
    documents,
    verifications: new VerificationService(store, clock, cursors, documents.onFile),
    cards: new CardService(store, cursors, clock, config.sandboxDelayedActivationMs),
    cardSimulations: new CardSimulations(store, clock),
    cardReveals: new CardReveals(store, clock, keys.cardRevealKey, config.cardRevealTtlMs),
    formSubmissions: new FormSubmissions(store),
    internalAccounts: new InternalAccountService(store, cursors, clock),
    externalAccounts: new ExternalAccountService(store, clock, cursors, config.sandboxExternalAccountReviewDelayMs),
    ownershipVerification: new OwnershipVerification(store, clock, config.sandboxExternalAccountReviewDelayMs),
    platformAccounts: new PlatformAccountService(store, clock),
    transfers: new TransferService(store, clock),
    quotePayments: new QuotePaymentService(store, clock),
    umaReceive: new UmaReceiveService(store, clock),
    transactions: new PaymentTransactionService(store, cursors, clock),
    platformConfig,
    clock,
    sandboxClock: new SandboxClockService(store, clock, config.sandboxAuthorizationTtlMs, config.workerEnabled || config.httpProcesses > 1),
    webhookEvents: new WebhookEventLog(store, cursors, platformConfig, sendWebhook, clock),
    webhookResends: new WebhookResends(store, platformConfig, clock),
    signedDeliveries: new SignedDeliveries(store, platformConfig, signedHeaders),
    requestLogs: new RequestLog(store, cursors, { enabled: config.requestLogEnabled, bodyChars: config.requestLogBodyChars }),
    idempotencyKeys: new IdempotencyKeys(store),
    consoleSessionKey: Buffer.from(hkdfSync('sha256', keys.cursorKey, '', 'console-session', 32)),
    sendWebhook,
    exchangeRates,
    quotes: new QuoteService(store, clock, exchangeRates),
    receiverLookups: new ReceiverLookups(store, exchangeRates),
    invitations: new InvitationService(store, clock),
    withdrawalFees: new WithdrawalFees(store),
  };
}

/**
 * Opens the configured store, brings its schema up to date and builds the services over it.
 * A process that sends webhooks passes its sender; without one, sending is refused.
 */
export async function openServices(config: Config, sendWebhook?: SendWebhook): Promise<Services> {
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sqliteSynchronous: config.sqliteSynchronous });
  try {
    await migrateToLatest(store);
    const keys = { cursorKey: await loadOrCreateSecret(store.db, 'cursor_key'), cardRevealKey: await loadOrCreateSecret(store.db, 'card_reveal_key') };
    return createServices(config, store, keys, sendWebhook);
  } catch (err) {
    await store.close();
    throw err;
  }
}
