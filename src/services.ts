import { hkdfSync } from 'node:crypto';
import type { Config } from './config.js';
import { JOBS_WAKEUP_CHANNEL } from './store/jobs-repo.js';
import { migrateToLatest } from './store/migrator.js';
import { loadOrCreateSecret } from './store/settings-repo.js';
import { openStore, type Store } from './store/store.js';
import { BeneficialOwnerService } from './domain/customers/beneficial-owners.js';
import { CardReveals } from './domain/cards/card-reveals.js';
import { CardSimulations } from './domain/cards/card-simulations.js';
import { CardService } from './domain/cards/cards.js';
import { CustomerService } from './domain/customers/customers.js';
import { IdempotencyKeys } from './http/idempotency-keys.js';
import { InternalAccountService } from './domain/accounts/internal-accounts.js';
import { PlatformAccountService } from './domain/accounts/platform-accounts.js';
import { KycService } from './domain/customers/kyc.js';
import { Cursors } from './domain/shared/pagination.js';
import { PlatformConfigService } from './domain/platform/platform-config.js';
import { TokenService } from './domain/platform/tokens.js';
import { VerificationService } from './domain/verifications/verifications.js';
import { WebhookEventLog } from './domain/webhooks/webhook-event-log.js';
import { WebhookTargetPolicy } from './domain/webhooks/webhook-targets.js';
import { noWebhookSender, type SendWebhook } from './domain/webhooks/webhook-sending.js';

/** Every domain service, built once per process over one store. */
export interface Services {
  config: Config;
  store: Store;
  cursors: Cursors;
  tokens: TokenService;
  customers: CustomerService;
  /** The sandbox's KYC/KYB decisions. */
  kyc: KycService;
  beneficialOwners: BeneficialOwnerService;
  /** KYC/KYB submissions (POST /verifications). */
  verifications: VerificationService;
  cards: CardService;
  cardSimulations: CardSimulations;
  /** Sandbox card reveals: single-use signed URLs to a page with the card's details. */
  cardReveals: CardReveals;
  internalAccounts: InternalAccountService;
  /** The platform's own internal accounts (GET /platform/internal-accounts). */
  platformAccounts: PlatformAccountService;
  platformConfig: PlatformConfigService;
  webhookEvents: WebhookEventLog;
  /** Idempotency-Key records: first answers kept for replay. */
  idempotencyKeys: IdempotencyKeys;
  /** Signs the console's session cookies; derived from the stored cursor key, so every process shares it. */
  consoleSessionKey: Buffer;
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
  const platformConfig = new PlatformConfigService(store, WebhookTargetPolicy.forServer(config));
  return {
    config,
    store,
    cursors,
    tokens: new TokenService(store, cursors),
    customers: new CustomerService(store, cursors),
    kyc: new KycService(store),
    beneficialOwners: new BeneficialOwnerService(store, cursors, config.ownerPageCacheBytes),
    verifications: new VerificationService(store, cursors),
    cards: new CardService(store, cursors, config.sandboxDelayedActivationMs),
    cardSimulations: new CardSimulations(store),
    cardReveals: new CardReveals(store, keys.cardRevealKey, config.cardRevealTtlMs),
    internalAccounts: new InternalAccountService(store, cursors),
    platformAccounts: new PlatformAccountService(store),
    platformConfig,
    webhookEvents: new WebhookEventLog(store, cursors, platformConfig, sendWebhook),
    idempotencyKeys: new IdempotencyKeys(store),
    consoleSessionKey: Buffer.from(hkdfSync('sha256', keys.cursorKey, '', 'console-session', 32)),
    sendWebhook,
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
