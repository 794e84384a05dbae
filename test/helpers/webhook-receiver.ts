import { WebhookReceiver, type WebhookReceiverOptions, type WebhookVerificationKeys } from '../../src/cli/webhook-receiver.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { recordWebhookEvent } from '../../src/domain/webhooks/webhook-events.js';
import { startWorker } from '../../src/jobs/index.js';
import type { Worker } from '../../src/jobs/worker.js';
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

/** A new caller whose platform sends its webhooks to a running receiver, and a worker delivering them. */
export interface ConnectedCaller {
  caller: Caller;
  receiver: WebhookReceiver;
  worker: Worker;
}

/**
 * The setup most route tests share, as hooks of the enclosing suite: the returned object is filled
 * in before its first test (register it before hooks that use it) and stopped after its last.
 */
export function connectedCaller(t: TestApp): ConnectedCaller {
  const ctx = {} as ConnectedCaller;
  beforeAll(async () => {
    ctx.receiver = await startWebhookReceiver();
    ctx.caller = await t.newCaller();
    await connectReceiver(ctx.caller, ctx.receiver);
    ctx.worker = startWorker(t.services, t.app.log);
  });
  afterAll(async () => {
    await ctx.worker?.stop();
    await ctx.receiver?.stop();
  });
  return ctx;
}

/**
 * Waits for the resource's webhooks of these types, made in this order, each verified; answers
 * their data. Deliveries run concurrently, so they may arrive in any order: the order made is that
 * of their time-ordered event ids (webhook-id).
 */
export async function verifiedWebhooksOf(receiver: WebhookReceiver, id: string, types: string[]): Promise<Record<string, any>[]> {
  const eventsOf = () => receiver.verifiedUnique().filter((d) => (d.payload?.data as { id?: string } | undefined)?.id === id);
  await receiver.waitFor(() => eventsOf().length >= types.length, 15_000);
  const events = eventsOf().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  expect(events.map((e) => e.payload!.type)).toEqual(types);
  for (const e of events) expect(e.verified).toBe(true);
  return events.map((e) => e.payload!.data as Record<string, any>);
}
