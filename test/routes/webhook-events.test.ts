import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectReceiver, produceEvent, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describeEachEngine(
  'webhook event log',
  (t) => {
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
    });
    afterAll(() => receiver.stop());

    it('lists events oldest first, page by page, filtered by type and delivery state', async () => {
      const caller = await t.newCaller();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await produceEvent(t, caller, i % 2 === 0 ? 'CARD_TRANSACTION.AUTHORIZED' : 'CARD_TRANSACTION.SETTLED'));
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await caller.req('GET', `/webhook-events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.statusCode).toBe(200);
        const page = res.json();
        expect(page.totalCount).toBe(5);
        seen.push(...page.data.map((e: { id: string }) => e.id));
        cursor = page.nextCursor;
        expect(page.hasMore).toBe(cursor !== undefined);
      } while (cursor);
      expect(seen).toEqual(ids);

      const settled = (await caller.req('GET', '/webhook-events?type=CARD_TRANSACTION.SETTLED')).json();
      expect(settled.data.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[3]]);
      expect(settled.totalCount).toBe(2);
      const pending = (await caller.req('GET', '/webhook-events?deliveryState=PENDING&limit=1')).json();
      expect(pending).toMatchObject({ totalCount: 5, hasMore: true });
      expect(pending.data[0]).toMatchObject({ id: ids[0], deliveryState: 'PENDING', attemptCount: 0, payload: { id: ids[0], type: 'CARD_TRANSACTION.AUTHORIZED' } });
      const none = (await caller.req('GET', '/webhook-events?deliveryState=DELIVERED')).json();
      expect(none).toEqual({ data: [], hasMore: false, totalCount: 0 });
    });

    it('refuses bad filters and a cursor from another filter', async () => {
      const caller = await t.newCaller();
      await produceEvent(t, caller);
      await produceEvent(t, caller);
      const bad = await caller.req('GET', '/webhook-events?deliveryState=LOST&limit=0');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['deliveryState', 'limit']);
      const cursor = (await caller.req('GET', '/webhook-events?limit=1')).json().nextCursor;
      const res = await caller.req('GET', `/webhook-events?limit=1&type=X&cursor=${cursor}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().details.errors[0].field).toBe('cursor');
    });

    it('hides every platform\'s events from every other platform', async () => {
      const owner = await t.newCaller();
      const other = await t.newCaller();
      await connectReceiver(owner, receiver);
      await connectReceiver(other, receiver);
      const id = await produceEvent(t, owner);
      const ownerCursor = (await owner.req('GET', '/webhook-events?limit=1')).json();
      expect(ownerCursor.data[0].id).toBe(id);

      for (const [method, url] of [
        ['GET', `/webhook-events/${id}`],
        ['POST', `/webhook-events/${id}/redeliver`],
      ] as const) {
        const res = await other.req(method, url);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
        const unknown = await other.req(method, url.replace(id, 'Webhook:01900000-0000-7000-8000-000000000000'));
        expect(unknown.statusCode).toBe(404);
        expect(unknown.json().message.replace('Webhook:01900000-0000-7000-8000-000000000000', id)).toBe(res.json().message);
      }
      expect((await other.req('GET', '/webhook-events')).json()).toMatchObject({ data: [], totalCount: 0 });
      const list = await other.req('GET', '/webhook-events?limit=1');
      expect(list.json().totalCount).toBe(0);
      // The foreign event was not queued again.
      const jobs = await t.services.store.db.selectFrom('jobs').select('payload').where('kind', '=', 'webhook.deliver').execute();
      expect(jobs.filter((j) => j.payload.includes(id))).toHaveLength(1);
    });

    it('POST /sandbox/webhooks/test reports the endpoint\'s status and body', async () => {
      const caller = await t.newCaller();
      const notSet = await caller.req('POST', '/sandbox/webhooks/test');
      expect(notSet.statusCode).toBe(400);
      expect(notSet.json()).toMatchObject({ status: 400, code: 'WEBHOOK_ENDPOINT_NOT_SET' });

      await connectReceiver(caller, receiver);
      const before = receiver.deliveries.length;
      const ok = await caller.req('POST', '/sandbox/webhooks/test');
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ url: receiver.url, response_status: 200, response_body: '{"received":true}' });
      const delivered = receiver.deliveries[before]!;
      expect(delivered).toMatchObject({ verified: true });
      expect(delivered.payload).toMatchObject({ type: 'TEST' });
      // A test event is not part of the log.
      expect((await caller.req('GET', '/webhook-events')).json().totalCount).toBe(0);

      receiver.failNext = 1;
      receiver.failStatus = 502;
      const failed = await caller.req('POST', '/sandbox/webhooks/test');
      expect(failed.statusCode).toBe(400);
      expect(failed.json()).toMatchObject({
        status: 400,
        code: 'WEBHOOK_DELIVERY_ERROR',
        details: { url: receiver.url, response_status: 502, response_body: expect.stringContaining('receiver told to fail') },
      });

      const gone = await startWebhookReceiver();
      await gone.stop();
      await caller.req('PATCH', '/config', { webhookEndpoint: gone.url });
      const down = await caller.req('POST', '/sandbox/webhooks/test');
      expect(down.statusCode).toBe(400);
      expect(down.json()).toMatchObject({ code: 'WEBHOOK_DELIVERY_ERROR', details: { error: expect.stringMatching(/^no answer: could not connect/) } });
      expect(down.json().details.response_status).toBeUndefined();
    });

    it('answers 404 on the sandbox test route for a production token', async () => {
      const prod = await t.newCaller('production');
      const res = await prod.req('POST', '/sandbox/webhooks/test');
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('REFERENCE_NOT_FOUND');
    });
  },
  { JOB_POLL_MS: '20' },
);
