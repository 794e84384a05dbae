import { verify } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startWorker } from '../../src/jobs/index.js';
import { webhookDeliveryHandler } from '../../src/jobs/deliver-webhook-job.js';
import { DELIVER_WEBHOOK_JOB } from '../../src/domain/webhooks/webhook-events.js';
import type { Worker } from '../../src/jobs/worker.js';
import { describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';
import { connectReceiver, produceEvent, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const env = { WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2', WEBHOOK_TIMEOUT_MS: '400', JOB_POLL_MS: '20' };

async function eventOf(caller: Caller, id: string) {
  const res = await caller.req('GET', `/webhook-events/${id}`);
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function waitForState(caller: Caller, id: string, state: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = await eventOf(caller, id);
    if (event.deliveryState === state) return event;
    if (Date.now() > deadline) throw new Error(`event ${id} stayed ${event.deliveryState}, expected ${state}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The states of the event's delivery jobs. Once none is queued, the worker has nothing left to send
 * for the event: no retry and no redelivery can happen until a new job is queued.
 */
async function deliveryJobStates(t: TestApp, eventId: string): Promise<string[]> {
  const jobs = await t.services.store.db.selectFrom('jobs').select(['state', 'payload']).where('kind', '=', DELIVER_WEBHOOK_JOB).orderBy('id').execute();
  return jobs.filter((j) => (JSON.parse(j.payload) as { eventId: string }).eventId === eventId).map((j) => j.state);
}

describeEachEngine(
  'webhook delivery',
  (t: TestApp) => {
    let worker: Worker;
    const receivers: WebhookReceiver[] = [];
    const receiver = async () => {
      const r = await startWebhookReceiver();
      receivers.push(r);
      return r;
    };
    beforeAll(() => {
      worker = startWorker(t.services, t.app.log, [webhookDeliveryHandler]);
    });
    afterAll(async () => {
      await worker.stop();
    });
    afterEach(async () => {
      await Promise.all(receivers.splice(0).map((r) => r.stop()));
    });

    it('POSTs the stored body once, signed per Standard Webhooks, and marks the event DELIVERED', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      // The receiver holds its answer: the attempt's latency includes that much.
      r.delayMs = 60;
      const sentAt = performance.now();
      const id = await produceEvent(t, caller, 'CARD_TRANSACTION.EXPIRED', { id: 'CardTransaction:x', status: 'EXPIRED' });
      await r.waitFor((d) => d.length === 1);
      const [d] = r.deliveries;
      expect(d).toMatchObject({ verified: true, gridVerified: true, standardVerified: true, id });
      expect(d!.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(d!.gridSignature).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(d!.payload).toMatchObject({ id, type: 'CARD_TRANSACTION.EXPIRED', data: { status: 'EXPIRED' }, operation: { kind: 'AUTHORIZATION' } });
      const event = await waitForState(caller, id, 'DELIVERED');
      const checkedAt = Date.now();
      const elapsedMs = performance.now() - sentAt;
      expect(JSON.stringify(event.payload)).toBe(d!.body);
      expect(event).toMatchObject({ attemptCount: 1, type: 'CARD_TRANSACTION.EXPIRED' });
      expect(event.attempts).toEqual([expect.objectContaining({ url: r.url, responseStatus: 200, responseBody: '{"received":true}' })]);
      // Timers may fire up to a millisecond early by the monotonic clock the sender measures with.
      expect(event.attempts[0].latencyMs).toBeGreaterThanOrEqual(r.delayMs - 1);
      expect(event.attempts[0].latencyMs).toBeLessThanOrEqual(Math.ceil(elapsedMs));
      // Stamped when the answer came: after the receiver had the request, before this check.
      expect(Date.parse(event.deliveredAt)).toBeGreaterThanOrEqual(d!.receivedAt);
      expect(Date.parse(event.deliveredAt)).toBeLessThanOrEqual(checkedAt);
    });

    it('retries a failing endpoint with the same webhook-id and body until it accepts, recording every attempt', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      r.failNext = 2;
      r.failStatus = 500;
      const id = await produceEvent(t, caller);
      await r.waitFor((d) => d.some((x) => x.answeredStatus === 200));
      expect(r.deliveries).toHaveLength(3);
      expect(new Set(r.deliveries.map((d) => d.id))).toEqual(new Set([id]));
      expect(new Set(r.deliveries.map((d) => d.body)).size).toBe(1);
      expect(r.deliveries.every((d) => d.verified)).toBe(true);
      const event = await waitForState(caller, id, 'DELIVERED');
      expect(event.attemptCount).toBe(3);
      expect(event.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 500, 200]);
      expect(event.attempts[0].error).toMatch(/HTTP 500/);
      expect(event.attempts[0].responseBody).toContain('receiver told to fail');
      // Backoff: the retries are spaced out by the schedule (0.2 s, +-20% jitter).
      expect(r.deliveries[1]!.receivedAt - r.deliveries[0]!.receivedAt).toBeGreaterThanOrEqual(150);
    });

    it("counts a receiver's 409 (it already has the event) as delivered: no retry", async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      r.failNext = 1;
      r.failStatus = 409;
      const id = await produceEvent(t, caller);
      const event = await waitForState(caller, id, 'DELIVERED');
      expect(event.attemptCount).toBe(1);
      expect(event.attempts).toEqual([expect.objectContaining({ responseStatus: 409 })]);
      expect(event.attempts[0].error).toBeUndefined();
      // The delivery job ended done in the commit that marked the event DELIVERED: no retry is queued.
      expect(await deliveryJobStates(t, id)).toEqual(['done']);
      expect(r.deliveries).toHaveLength(1);
    });

    it('gives up after the schedule is spent and marks the event FAILED', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      r.failNext = 100;
      const id = await produceEvent(t, caller);
      const event = await waitForState(caller, id, 'FAILED');
      expect(await deliveryJobStates(t, id)).toEqual(['failed']);
      expect(event.attemptCount).toBe(4);
      expect(event.attempts).toHaveLength(4);
      expect(r.deliveries).toHaveLength(4);
      expect(event.nextAttemptAt).toBeUndefined();
    });

    it('retries after a connection error', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      await r.stop();
      const id = await produceEvent(t, caller);
      const deadline = Date.now() + 5000;
      while ((await eventOf(caller, id)).attemptCount < 1 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
      await r.start();
      const event = await waitForState(caller, id, 'DELIVERED');
      expect(event.attempts[0].responseStatus).toBeUndefined();
      expect(event.attempts[0].error).toBe('no answer: could not connect, or no response within 400 ms');
      expect(event.attempts.at(-1).responseStatus).toBe(200);
    });

    it('times out a slow endpoint (WEBHOOK_TIMEOUT_MS) and retries', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      r.delayMs = 1000;
      const id = await produceEvent(t, caller);
      await r.waitFor((d) => d.length === 1);
      r.delayMs = 0;
      const event = await waitForState(caller, id, 'DELIVERED');
      expect(event.attempts[0]).toMatchObject({ error: 'no answer: could not connect, or no response within 400 ms' });
      expect(event.attempts[0].responseStatus).toBeUndefined();
      expect(event.attempts[0].latencyMs).toBeGreaterThanOrEqual(350);
      expect(event.attempts[0].latencyMs).toBeLessThan(1000);
      expect(event.attempts.at(-1).responseStatus).toBe(200);
      expect(new Set(r.deliveries.map((d) => d.id))).toEqual(new Set([id]));
    });

    it('signs for a platform configured before key pairs existed with the key pair its config then gets', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      await t.services.store.db.updateTable('platform_webhook_config').set({ signing_private_key: null, signing_public_key: null }).where('platform_id', '=', caller.platformId).execute();
      await produceEvent(t, caller);
      await r.waitFor((d) => d.length >= 1);
      const { webhookPublicKey } = (await caller.req('GET', '/config')).json();
      expect(webhookPublicKey).not.toBe(r.publicKey);
      const d = r.deliveries[0]!;
      expect(d.standardVerified).toBe(true);
      expect(verify('sha256', Buffer.from(d.body), webhookPublicKey, Buffer.from(d.gridSignature, 'base64'))).toBe(true);
    });

    it('signs with both secrets during a rotation window; each verifies on its own', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      const oldSecret = await connectReceiver(caller, r);
      const publishedKey = r.publicKey!;
      const rotated = (await caller.req('POST', '/config/webhook-secret/rotate')).json();
      const newSecret = rotated.webhookSecret as string;
      expect(rotated.webhookPublicKey).toBe(publishedKey);
      r.secrets = [oldSecret, newSecret];
      await produceEvent(t, caller);
      await r.waitFor((d) => d.length === 1);
      const [d] = r.deliveries;
      expect(d!.verifiedWith).toEqual([true, true]);
      expect(verify('sha256', Buffer.from(d!.body), publishedKey, Buffer.from(d!.gridSignature, 'base64'))).toBe(true);
      expect(d!.signature.split(' ')).toHaveLength(2);
      const headers = { 'webhook-id': d!.id, 'webhook-timestamp': d!.timestamp, 'webhook-signature': d!.signature };
      expect(new Webhook(oldSecret).verify(d!.body, headers)).toMatchObject({ id: d!.id });
      expect(new Webhook(newSecret).verify(d!.body, headers)).toMatchObject({ id: d!.id });
      expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(d!.body, headers)).toThrow();
    });

    it('signs with the new secret only once the window is over', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      const oldSecret = await connectReceiver(caller, r);
      const newSecret = (await caller.req('POST', '/config/webhook-secret/rotate')).json().webhookSecret as string;
      await t.services.store.db.updateTable('platform_webhook_config').set({ previous_secret_expires_at: Date.now() - 1 }).where('platform_id', '=', caller.platformId).execute();
      r.secrets = [oldSecret, newSecret];
      await produceEvent(t, caller);
      await r.waitFor((d) => d.length === 1);
      expect(r.deliveries[0]!.verifiedWith).toEqual([false, true]);
      expect(r.deliveries[0]!.signature.split(' ')).toHaveLength(1);
    });

    it('keeps an event as WEBHOOK_ENDPOINT_NOT_SET until an endpoint is set and it is redelivered', async () => {
      const caller = await t.newCaller();
      const id = await produceEvent(t, caller);
      const notSet = await waitForState(caller, id, 'WEBHOOK_ENDPOINT_NOT_SET');
      expect(notSet.attempts).toEqual([]);
      const refused = await caller.req('POST', `/webhook-events/${id}/redeliver`);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ status: 400, code: 'WEBHOOK_ENDPOINT_NOT_SET' });

      const r = await receiver();
      await connectReceiver(caller, r);
      // Setting the endpoint alone does not send stored events: it queues no delivery.
      expect(await deliveryJobStates(t, id)).toEqual(['done']);
      expect(r.deliveries).toHaveLength(0);
      const queued = await caller.req('POST', `/webhook-events/${id}/redeliver`);
      expect(queued.statusCode).toBe(202);
      expect(queued.json()).toMatchObject({ id, deliveryState: 'PENDING' });
      await r.waitFor((d) => d.length === 1);
      expect(r.deliveries[0]).toMatchObject({ id, verified: true });
      const event = await waitForState(caller, id, 'DELIVERED');
      expect(event.attemptCount).toBe(1);
    });

    it('redelivers a delivered event with the same webhook-id and body', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      const id = await produceEvent(t, caller);
      await waitForState(caller, id, 'DELIVERED');
      expect((await caller.req('POST', `/webhook-events/${id}/redeliver`)).statusCode).toBe(202);
      await r.waitFor((d) => d.length === 2);
      expect(r.deliveries.map((d) => d.id)).toEqual([id, id]);
      expect(r.deliveries[1]!.body).toBe(r.deliveries[0]!.body);
      const event = await waitForState(caller, id, 'DELIVERED');
      expect(event.attempts).toHaveLength(2);
    });

    it('marks the event FAILED when its delivery job is spent by errors (each attempt threw) rather than refusals', async () => {
      await worker.stop();
      const threwFor: string[] = [];
      const sendWebhook = async (d: { id: string }): Promise<never> => {
        threwFor.push(d.id);
        throw new Error('sender broke');
      };
      const throwing = startWorker({ ...t.services, sendWebhook }, t.app.log, [webhookDeliveryHandler]);
      try {
        const caller = await t.newCaller();
        const r = await receiver();
        await connectReceiver(caller, r);
        const id = await produceEvent(t, caller);
        const event = await waitForState(caller, id, 'FAILED');
        // Earlier tests' events may still be retrying: count this event's attempts.
        expect(threwFor.filter((e) => e === id)).toHaveLength(4);
        expect(r.deliveries).toHaveLength(0);
        expect(event.nextAttemptAt).toBeUndefined();
      } finally {
        await throwing.stop();
        worker = startWorker(t.services, t.app.log, [webhookDeliveryHandler]);
      }
    });
  },
  env,
);
