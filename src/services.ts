import type { Config } from './config.js';
import { JOBS_WAKEUP_CHANNEL } from './store/jobs-repo.js';
import { migrateToLatest } from './store/migrator.js';
import { loadOrCreateSecret } from './store/settings-repo.js';
import { openStore, type Store } from './store/store.js';
import { BeneficialOwnerService } from './domain/customers/beneficial-owners.js';
import { CardSimulations } from './domain/cards/card-simulations.js';
import { CardService } from './domain/cards/cards.js';
import { CustomerService } from './domain/customers/customers.js';
import { IdempotencyKeys } from './http/idempotency-keys.js';
import { InternalAccountService } from './domain/accounts/internal-accounts.js';
import { KycService } from './domain/customers/kyc.js';
import { Cursors } from './domain/shared/pagination.js';
import { PlatformConfigService } from './domain/platform/platform-config.js';
import { CLOCK_CHANNEL, PlatformClock } from './domain/platform/platform-clock.js';
import { SandboxClockService } from './domain/platform/sandbox-clock.js';
import { TokenService } from './domain/platform/tokens.js';
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
  cards: CardService;
  cardSimulations: CardSimulations;
  internalAccounts: InternalAccountService;
  platformConfig: PlatformConfigService;
  /** Each platform's time (the sandbox clock): `await clock.now(platformId)` for every timestamp written for a platform. */
  clock: PlatformClock;
  /** Reading and advancing the sandbox clock; expiring authorizations. */
  sandboxClock: SandboxClockService;
  webhookEvents: WebhookEventLog;
  /** Idempotency-Key records: first answers kept for replay. */
  idempotencyKeys: IdempotencyKeys;
  /** Outbound webhook HTTP, given by the process (jobs/webhook-sender.ts); shared by the worker and the test route. */
  sendWebhook: SendWebhook;
}

export function createServices(config: Config, store: Store, cursorKey: Buffer, sendWebhook: SendWebhook = noWebhookSender): Services {
  const cursors = new Cursors(cursorKey);
  // A commit that enqueued jobs wakes this process's worker (it listens itself) and, on PostgreSQL, every other process's.
  const wakeups = store.wakeups;
  if (wakeups) store.onJobsEnqueued(() => wakeups.notify(JOBS_WAKEUP_CHANNEL));
  const clock = new PlatformClock(store);
  const platformConfig = new PlatformConfigService(store, WebhookTargetPolicy.forServer(config), config.sandboxAuthorizationTtlMs, clock);
  // Another process advanced a clock: offsets are read again on next use.
  wakeups?.listen(CLOCK_CHANNEL, () => clock.forget());
  return {
    config,
    store,
    cursors,
    tokens: new TokenService(store, cursors, clock),
    customers: new CustomerService(store, cursors, config.sandboxKycApprovalDelayMs, clock),
    kyc: new KycService(store, clock),
    beneficialOwners: new BeneficialOwnerService(store, cursors, clock, config.ownerPageCacheBytes),
    cards: new CardService(store, cursors, clock),
    cardSimulations: new CardSimulations(store, clock),
    internalAccounts: new InternalAccountService(store, cursors, clock),
    platformConfig,
    clock,
    sandboxClock: new SandboxClockService(store, clock, config.sandboxAuthorizationTtlMs, config.workerEnabled || config.httpProcesses > 1),
    webhookEvents: new WebhookEventLog(store, cursors, platformConfig, sendWebhook, clock),
    idempotencyKeys: new IdempotencyKeys(store),
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
    const cursorKey = await loadOrCreateSecret(store.db, 'cursor_key');
    return createServices(config, store, cursorKey, sendWebhook);
  } catch (err) {
    await store.close();
    throw err;
  }
}
