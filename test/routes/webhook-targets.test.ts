import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startWorker } from '../../src/jobs/index.js';
import { webhookDeliveryHandler } from '../../src/jobs/deliver-webhook-job.js';
import type { Worker } from '../../src/jobs/worker.js';
import { INTERNAL_SPELLINGS } from '../helpers/internal-targets.js';
import { describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';
import { connectReceiver, produceEvent, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const NOT_ALLOWED = /not allowed from this server/;
const env = { WEBHOOK_RETRY_SCHEDULE: '0.2', WEBHOOK_TIMEOUT_MS: '1000', JOB_POLL_MS: '20' };

/** An endpoint saved while the server was loopback-bound (or before the policy existed): the store has it, PATCH would refuse it now. */
async function storeEndpoint(t: TestApp, caller: Caller, url: string): Promise<void> {
  await caller.req('GET', '/config');
  await t.services.store.db.updateTable('platform_webhook_config').set({ webhook_endpoint: url }).where('platform_id', '=', caller.platformId).execute();
}

async function settledEvent(caller: Caller, id: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const event = (await caller.req('GET', `/webhook-events/${id}`)).json();
    if (event.deliveryState === 'FAILED' || event.deliveryState === 'DELIVERED') return event;
    if (Date.now() > deadline) throw new Error(`event ${id} is still ${event.deliveryState}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describeEachEngine(
  'webhook targets on a server reachable from other machines (HOST=0.0.0.0)',
  (t) => {
    let receiver: WebhookReceiver;
    let worker: Worker;
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      worker = startWorker(t.services, t.app.log, [webhookDeliveryHandler]);
    });
    afterAll(async () => {
      await worker.stop();
      await receiver.stop();
    });
    afterEach(() => {
      receiver.deliveries.length = 0;
    });

    it.each(INTERNAL_SPELLINGS)('PATCH /config refuses the endpoint http://%s/ (%s) with a 400 on webhookEndpoint', async (spelling) => {
      const res = await t.caller.req('PATCH', '/config', { webhookEndpoint: `http://${spelling}:8080/hooks` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [expect.objectContaining({ field: 'webhookEndpoint', message: expect.stringMatching(/internal address/) })] } });
    });

    it('PATCH /config takes a public address or a name; names are checked when delivering', async () => {
      for (const url of ['https://hooks.example.com/in', 'http://93.184.216.34/in', 'https://[2606:4700:4700::1111]/in']) {
        const res = await t.caller.req('PATCH', '/config', { webhookEndpoint: url });
        expect(res.statusCode, url).toBe(200);
      }
    });

    it('the test webhook to an internal endpoint is not sent: 400 saying it is not allowed, nothing read back', async () => {
      const caller = await t.newCaller();
      await storeEndpoint(t, caller, `http://localhost:${receiver.port}/webhooks`);
      const res = await caller.req('POST', '/sandbox/webhooks/test');
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ status: 400, code: 'WEBHOOK_DELIVERY_ERROR', details: { error: expect.stringMatching(NOT_ALLOWED) } });
      expect(body.details).not.toHaveProperty('response_status');
      expect(body.details).not.toHaveProperty('response_body');
      expect(JSON.stringify(body)).not.toContain('127.0.0.1');
      expect(receiver.deliveries).toHaveLength(0);
    });

    it('an event for an internal endpoint is never sent: every attempt says not allowed, with no status and no body', async () => {
      const caller = await t.newCaller();
      await storeEndpoint(t, caller, `http://127.0.0.1:${receiver.port}/webhooks`);
      const id = await produceEvent(t, caller);
      const event = await settledEvent(caller, id);
      expect(event.deliveryState).toBe('FAILED');
      expect(event.attempts).toHaveLength(2);
      for (const attempt of event.attempts) {
        expect(attempt.error).toMatch(NOT_ALLOWED);
        expect(attempt).not.toHaveProperty('responseStatus');
        expect(attempt).not.toHaveProperty('responseBody');
      }
      expect(receiver.deliveries).toHaveLength(0);
    });
  },
  { ...env, HOST: '0.0.0.0' },
);

describeEachEngine(
  'webhook targets on an exposed server with WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8',
  (t) => {
    let receiver: WebhookReceiver;
    beforeAll(async () => {
      receiver = await startWebhookReceiver();
    });
    afterAll(() => receiver.stop());

    it('accepts and delivers to an endpoint in an allowed network, verified both ways', async () => {
      const caller = await t.newCaller();
      await connectReceiver(caller, receiver);
      const res = await caller.req('POST', '/sandbox/webhooks/test');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ url: receiver.url, response_status: 200 });
      expect(receiver.deliveries.at(-1)).toMatchObject({ verified: true, gridVerified: true, standardVerified: true });
    });

    it('still refuses the networks it does not list', async () => {
      for (const host of ['10.0.0.1', '169.254.169.254', '[::1]', '[fd00::1]']) {
        const res = await t.caller.req('PATCH', '/config', { webhookEndpoint: `http://${host}/hooks` });
        expect(res.statusCode, host).toBe(400);
      }
    });
  },
  { ...env, HOST: '0.0.0.0', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' },
);

describeEachEngine(
  'webhook targets in production on a loopback-bound server',
  (t) => {
    it('PATCH /config refuses internal addresses: production is exposed whatever HOST says', async () => {
      const caller = await t.newCaller('production');
      for (const host of ['127.0.0.1', 'localhost', '0x7f.1', '[::ffff:127.0.0.1]', '169.254.169.254']) {
        const res = await caller.req('PATCH', '/config', { webhookEndpoint: `http://${host}:8080/hooks` });
        expect(res.statusCode, host).toBe(400);
      }
      expect((await caller.req('PATCH', '/config', { webhookEndpoint: 'https://hooks.example.com/in' })).statusCode).toBe(200);
    });
  },
  { HOST: '127.0.0.1', SERVICE_ENV: 'production' },
);
