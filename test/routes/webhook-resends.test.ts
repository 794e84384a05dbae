import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startWorker } from '../../src/jobs/index.js';
import { webhookDeliveryHandler } from '../../src/jobs/deliver-webhook-job.js';
import { resendWebhooksHandler } from '../../src/jobs/resend-webhooks-job.js';
import { RESEND_BATCH, RESEND_WEBHOOKS_JOB } from '../../src/domain/webhooks/webhook-resends.js';
import { newId } from '../../src/domain/shared/ids.js';
import type { Worker } from '../../src/jobs/worker.js';
import { basicAuth, describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectReceiver, produceEvent, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const env = { WEBHOOK_RETRY_SCHEDULE: '0.05', WEBHOOK_TIMEOUT_MS: '5000', JOB_POLL_MS: '20' };

async function states(caller: Caller, ids: string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await caller.req('GET', `/webhook-events/${id}`)).json().deliveryState as string));
}

async function settle(caller: Caller, ids: string[], state: string): Promise<void> {
  await until(`events ${state}`, async () => ((await states(caller, ids)).every((s) => s === state) ? true : undefined), 15_000);
}

/** Accepted (2xx) and verified deliveries per webhook-id. */
function acceptedPerId(r: WebhookReceiver): Map<string, number> {
  const n = new Map<string, number>();
  for (const d of r.deliveries) if (d.verified && d.answeredStatus < 300) n.set(d.id, (n.get(d.id) ?? 0) + 1);
  return n;
}

async function noQueued(t: TestApp, kind: string): Promise<boolean> {
  return (await t.services.store.db.selectFrom('jobs').select('id').where('kind', '=', kind).where('state', '=', 'queued').execute()).length === 0;
}

async function noJobsLeft(t: TestApp): Promise<void> {
  const busy = () => t.services.store.db.selectFrom('jobs').select('id').where('state', '=', 'queued').execute();
  await until('no job left', async () => ((await busy()).length === 0 ? true : undefined), 15_000);
}

describeEachEngine(
  'webhook recover and replay-missing',
  (t) => {
    let worker: Worker;
    const receivers: WebhookReceiver[] = [];
    const receiver = async () => {
      const r = await startWebhookReceiver();
      receivers.push(r);
      return r;
    };
    beforeAll(() => {
      worker = startWorker(t.services, t.app.log, [webhookDeliveryHandler, resendWebhooksHandler]);
    });
    afterAll(() => worker.stop());
    afterEach(async () => {
      await Promise.all(receivers.splice(0).map((r) => r.stop()));
    });

    it('recover: events that FAILED while the endpoint was down are each delivered once it is up, with their own ids', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      r.failNext = 1_000;
      const since = new Date(Date.now() - 1000).toISOString();
      const ids = [await produceEvent(t, caller), await produceEvent(t, caller), await produceEvent(t, caller)];
      await settle(caller, ids, 'FAILED');
      expect(acceptedPerId(r).size).toBe(0);

      r.failNext = 0;
      const res = await caller.req('POST', '/webhook-events/recover', { since });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ count: 3 });
      await settle(caller, ids, 'DELIVERED');
      await noJobsLeft(t);
      expect([...acceptedPerId(r)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
      // Nothing left to recover: a second call selects none.
      expect((await caller.req('POST', '/webhook-events/recover', { since })).json()).toEqual({ count: 0 });
    });

    it('recover: an event still PENDING a retry hours ahead is sent now, and a second call does not take it again', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      r.failNext = 1_000;
      const since = new Date(Date.now() - 1000).toISOString();
      const ids = [await produceEvent(t, caller), await produceEvent(t, caller)];
      await settle(caller, ids, 'FAILED');
      // As after an outage under the default schedule: the last attempt failed, the next is hours away.
      await t.services.store.db.updateTable('webhook_events').set({ delivery_state: 'PENDING', next_attempt_at: Date.now() + 3_600_000 }).where('id', 'in', ids).execute();
      r.failNext = 0;

      await worker.stop();
      expect((await caller.req('POST', '/webhook-events/recover', { since })).json()).toEqual({ count: 2 });
      worker = startWorker(t.services, t.app.log, [resendWebhooksHandler]);
      await until('the resend job to run', async () => ((await states(caller, ids)).every((s) => s === 'PENDING') && (await noQueued(t, RESEND_WEBHOOKS_JOB)) ? true : undefined), 15_000);
      expect((await caller.req('POST', '/webhook-events/recover', { since })).json()).toEqual({ count: 0 });
      await worker.stop();
      worker = startWorker(t.services, t.app.log, [webhookDeliveryHandler, resendWebhooksHandler]);
      await settle(caller, ids, 'DELIVERED');
      await noJobsLeft(t);
      expect([...acceptedPerId(r)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
    });

    it('replay-missing: events made while no endpoint was set reach the endpoint set later', async () => {
      const caller = await t.newCaller();
      const since = new Date(Date.now() - 1000).toISOString();
      const ids = [await produceEvent(t, caller), await produceEvent(t, caller)];
      await settle(caller, ids, 'WEBHOOK_ENDPOINT_NOT_SET');
      expect((await caller.req('POST', '/webhook-events/replay-missing', { since })).json()).toMatchObject({ code: 'WEBHOOK_ENDPOINT_NOT_SET' });

      const r = await receiver();
      await connectReceiver(caller, r);
      // recover takes only what failed at this endpoint: nothing here.
      expect((await caller.req('POST', '/webhook-events/recover', { since })).json()).toEqual({ count: 0 });
      const res = await caller.req('POST', '/webhook-events/replay-missing', { since });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toEqual({ count: 2 });
      await settle(caller, ids, 'DELIVERED');
      await noJobsLeft(t);
      expect([...acceptedPerId(r)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
    });

    it('replay-missing: a window left open ends at the platform clock, so events stamped after an advance are in it', async () => {
      const caller = await t.newCaller();
      expect((await caller.req('POST', '/sandbox/clock/advance', { seconds: 86_400 })).statusCode).toBe(200);
      const since = new Date(Date.now() - 1000).toISOString();
      const ids = [await produceEvent(t, caller), await produceEvent(t, caller)];
      await settle(caller, ids, 'WEBHOOK_ENDPOINT_NOT_SET');
      const stamped = await Promise.all(ids.map(async (id) => Date.parse((await caller.req('GET', `/webhook-events/${id}`)).json().createdAt)));
      expect(Math.min(...stamped)).toBeGreaterThan(Date.now() + 3_600_000);
      const r = await receiver();
      await connectReceiver(caller, r);
      expect((await caller.req('POST', '/webhook-events/replay-missing', { since })).json()).toEqual({ count: 2 });
      await settle(caller, ids, 'DELIVERED');
      await noJobsLeft(t);
      expect([...acceptedPerId(r)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
    });

    it('replay-missing: after the endpoint changes, the events the old endpoint got are sent to the new one', async () => {
      const caller = await t.newCaller();
      const old = await receiver();
      await connectReceiver(caller, old);
      const since = new Date(Date.now() - 1000).toISOString();
      const ids = [await produceEvent(t, caller), await produceEvent(t, caller)];
      await settle(caller, ids, 'DELIVERED');

      const fresh = await receiver();
      await connectReceiver(caller, fresh);
      const later = await produceEvent(t, caller);
      await settle(caller, [later], 'DELIVERED');
      const res = await caller.req('POST', '/webhook-events/replay-missing', { since });
      expect(res.json()).toEqual({ count: 2 });
      await noJobsLeft(t);
      expect([...acceptedPerId(fresh)].sort()).toEqual([...ids, later].map((id) => [id, 1]).sort());
      expect([...acceptedPerId(old)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
      expect((await caller.req('POST', '/webhook-events/replay-missing', { since })).json()).toEqual({ count: 0 });
    });

    it('is idempotent: a retried call with its Idempotency-Key replays the answer, and two identical calls deliver each event once', async () => {
      const caller = await t.newCaller();
      const r = await receiver();
      await connectReceiver(caller, r);
      r.failNext = 1_000;
      const since = new Date(Date.now() - 1000).toISOString();
      const ids = [await produceEvent(t, caller), await produceEvent(t, caller)];
      await settle(caller, ids, 'FAILED');
      r.failNext = 0;

      await worker.stop();
      const first = await caller.req('POST', '/webhook-events/recover', { since }, { 'idempotency-key': 'recover-1' });
      const retried = await caller.req('POST', '/webhook-events/recover', { since }, { 'idempotency-key': 'recover-1' });
      const second = await caller.req('POST', '/webhook-events/recover', { since });
      expect([first.statusCode, retried.statusCode, second.statusCode]).toEqual([202, 202, 202]);
      expect(retried.headers['idempotent-replayed']).toBe('true');
      expect(retried.json()).toEqual(first.json());
      const jobs = await t.services.store.db.selectFrom('jobs').select('payload').where('kind', '=', RESEND_WEBHOOKS_JOB).execute();
      expect(jobs.filter((j) => j.payload.includes(caller.platformId))).toHaveLength(2);

      worker = startWorker(t.services, t.app.log, [webhookDeliveryHandler, resendWebhooksHandler]);
      await settle(caller, ids, 'DELIVERED');
      await noJobsLeft(t);
      expect([...acceptedPerId(r)].sort()).toEqual(ids.map((id) => [id, 1]).sort());
    });

    it('a window larger than a batch is queued by one job per batch, in the background, each event once', async () => {
      const caller = await t.newCaller();
      const now = Date.now();
      const rows = Array.from({ length: RESEND_BATCH + 100 }, (_, i) => {
        const id = newId('Webhook');
        return { id, platform_id: caller.platformId, type: 'CARD_TRANSACTION.AUTHORIZED', body: JSON.stringify({ id, type: 'CARD_TRANSACTION.AUTHORIZED', n: i }), delivery_state: 'WEBHOOK_ENDPOINT_NOT_SET' as const, created_at: now, updated_at: now };
      });
      for (let i = 0; i < rows.length; i += 200) await t.services.store.db.insertInto('webhook_events').values(rows.slice(i, i + 200)).execute();
      const r = await receiver();
      await connectReceiver(caller, r);
      const res = await caller.req('POST', '/webhook-events/replay-missing', { since: new Date(now - 1).toISOString() });
      expect(res.json()).toEqual({ count: RESEND_BATCH + 100 });
      await until('every event delivered', async () => (acceptedPerId(r).size === rows.length ? true : undefined), 60_000);
      await noJobsLeft(t);
      // One delivery job per event (a receiver slower than WEBHOOK_TIMEOUT_MS may still see a retry: delivery is at least once).
      const deliveries = await t.services.store.db.selectFrom('jobs').select('payload').where('kind', '=', 'webhook.deliver').execute();
      const perEvent = new Map<string, number>();
      for (const j of deliveries) {
        const { eventId, platformId } = JSON.parse(j.payload) as { eventId: string; platformId: string };
        if (platformId === caller.platformId) perEvent.set(eventId, (perEvent.get(eventId) ?? 0) + 1);
      }
      expect(perEvent.size).toBe(rows.length);
      expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
      const jobs = await t.services.store.db.selectFrom('jobs').select('payload').where('kind', '=', RESEND_WEBHOOKS_JOB).execute();
      expect(jobs.filter((j) => j.payload.includes(caller.platformId))).toHaveLength(2);
    });

    it('takes only the window, only the caller\'s platform, and refuses bad windows and VIEW tokens', async () => {
      const caller = await t.newCaller();
      const other = await t.newCaller();
      const r = await receiver();
      const otherReceiver = await receiver();
      await connectReceiver(caller, r);
      await connectReceiver(other, otherReceiver);
      r.failNext = 1_000;
      otherReceiver.failNext = 1_000;
      const before = await produceEvent(t, caller);
      await settle(caller, [before], 'FAILED');
      const since = new Date(Date.now() + 5).toISOString();
      await until('the window to open', async () => (Date.now() > Date.parse(since) + 5 ? true : undefined));
      const inside = await produceEvent(t, caller);
      const foreign = await produceEvent(t, other);
      await settle(caller, [inside], 'FAILED');
      await settle(other, [foreign], 'FAILED');
      r.failNext = 0;
      otherReceiver.failNext = 0;

      expect((await caller.req('POST', '/webhook-events/recover', { since, until: new Date(Date.parse(since) - 1).toISOString() })).json()).toMatchObject({
        status: 400,
        code: 'INVALID_INPUT',
        details: { errors: [{ field: 'until' }] },
      });
      const bad = await caller.req('POST', '/webhook-events/replay-missing', { since: 'yesterday', until: 5, extra: true });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['extra', 'since', 'until']);
      expect((await caller.req('POST', '/webhook-events/recover', {})).json().details.errors.map((e: { field: string }) => e.field)).toEqual(['since']);

      const view = (await caller.req('POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] })).json();
      const denied = await t.app.inject({ method: 'POST', url: '/2025-10-13/webhook-events/recover', headers: { authorization: basicAuth(view.clientId, view.clientSecret) }, payload: { since } });
      expect(denied.statusCode).toBe(403);

      expect((await caller.req('POST', '/webhook-events/recover', { since })).json()).toEqual({ count: 1 });
      await settle(caller, [inside], 'DELIVERED');
      await noJobsLeft(t);
      expect(await states(caller, [before])).toEqual(['FAILED']);
      expect(await states(other, [foreign])).toEqual(['FAILED']);
      expect([...acceptedPerId(r).keys()]).toEqual([inside]);
    });
  },
  env,
);
