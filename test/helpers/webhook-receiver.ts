import { WebhookReceiver, type WebhookReceiverOptions, type WebhookVerificationKeys } from '../../src/cli/webhook-receiver.js';
import { recordWebhookEvent } from '../../src/domain/webhooks/webhook-events.js';
import type { Caller, TestApp } from './test-app.js';

export { WebhookReceiver, type ReceivedWebhook } from '../../src/cli/webhook-receiver.js';

/** A listening receiver (src/cli/webhook-receiver.ts); the caller stops it. */
export async function startWebhookReceiver(opts: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  return new WebhookReceiver(opts).start();
}

/** Points the caller's platform at the receiver and teaches the receiver the platform's secret and public key; returns the secret. */
export async function connectReceiver(caller: Caller, receiver: WebhookReceiver): Promise<string> {
  const res = await caller.req('PATCH', '/config', { webhookEndpoint: receiver.url });
  if (res.statusCode !== 200) throw new Error(`PATCH /config answered ${res.statusCode}: ${res.body}`);
  const config = res.json() as WebhookVerificationKeys;
  receiver.trust(config);
  return config.webhookSecret;
}

/** Stores an event for the caller's platform as a landed card operation would (its commit wakes the worker). */
export async function produceEvent(t: TestApp, caller: Caller, type = 'CARD_TRANSACTION.AUTHORIZED', data: Record<string, unknown> = { id: 'CardTransaction:test' }): Promise<string> {
  // Stamped on the platform's clock, as the services stamp theirs.
  const now = await t.services.clock.now(caller.platformId);
  const { id } = await t.services.store.transaction((uow) =>
    recordWebhookEvent(uow, { platformId: caller.platformId, type, fields: { data, operation: { kind: 'AUTHORIZATION', issuerTransactionToken: `itt_${Math.random().toString(36).slice(2)}`, amount: 1250 } } }, now),
  );
  return id;
}
