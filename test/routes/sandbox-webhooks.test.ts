import { verify } from 'node:crypto';
import { Ajv } from 'ajv';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestWebhookResponseSchema } from '../../src/schemas/sandbox-webhooks.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectReceiver, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const checkAnswer = new Ajv({ strict: false, validateFormats: false }).compile(TestWebhookResponseSchema);

describeEachEngine('the test webhook', (t) => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  it('sends a TEST event in the documented envelope, signed both ways, and answers in the documented shape', async () => {
    const caller = await t.newCaller();
    await connectReceiver(caller, receiver);
    const config = (await caller.req('GET', '/config')).json();
    const before = receiver.deliveries.length;
    const res = await caller.req('POST', '/sandbox/webhooks/test');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ url: receiver.url, response_status: 200, response_body: '{"received":true}' });
    expect(checkAnswer(res.json()), JSON.stringify(checkAnswer.errors)).toBe(true);

    expect(receiver.deliveries).toHaveLength(before + 1);
    const d = receiver.deliveries[before]!;
    expect(d).toMatchObject({ verified: true, gridVerified: true, standardVerified: true });
    const body = JSON.parse(d.body);
    expect(Object.keys(body)).toEqual(['id', 'type', 'timestamp', 'data']);
    expect(body).toMatchObject({ id: d.id, type: 'TEST', data: {} });
    expect(body.id).toMatch(/^Webhook:[0-9a-f-]{36}$/);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    // The same delivery, checked here without the receiver's help: Node's crypto and standardwebhooks.
    expect(verify('sha256', Buffer.from(d.body), config.webhookPublicKey, Buffer.from(d.gridSignature, 'base64'))).toBe(true);
    expect(new Webhook(config.webhookSecret).verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature })).toMatchObject({ type: 'TEST' });
    const tampered = d.body.replace('"TEST"', '"TEST" ');
    expect(verify('sha256', Buffer.from(tampered), config.webhookPublicKey, Buffer.from(d.gridSignature, 'base64'))).toBe(false);
  });

  it("reports a receiver's 409 as received: 200 with response_status 409", async () => {
    const caller = await t.newCaller();
    await connectReceiver(caller, receiver);
    receiver.failNext = 1;
    receiver.failStatus = 409;
    const res = await caller.req('POST', '/sandbox/webhooks/test');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ url: receiver.url, response_status: 409 });
  });

  it('stays verifiable both ways across a secret rotation: old and new secret, the same public key', async () => {
    const caller = await t.newCaller();
    const oldSecret = await connectReceiver(caller, receiver);
    const rotated = (await caller.req('POST', '/config/webhook-secret/rotate')).json();
    receiver.secrets = [oldSecret, rotated.webhookSecret];
    const before = receiver.deliveries.length;
    expect((await caller.req('POST', '/sandbox/webhooks/test')).statusCode).toBe(200);
    const d = receiver.deliveries[before]!;
    expect(d).toMatchObject({ verified: true, gridVerified: true, verifiedWith: [true, true] });
    expect(rotated.webhookPublicKey).toBe(receiver.publicKey);
  });

  it('is refused by a receiver that holds another platform\'s public key', async () => {
    const caller = await t.newCaller();
    await connectReceiver(caller, receiver);
    receiver.publicKey = (await (await t.newCaller()).req('GET', '/config')).json().webhookPublicKey;
    const res = await caller.req('POST', '/sandbox/webhooks/test');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'WEBHOOK_DELIVERY_ERROR', details: { response_status: 401, response_body: expect.stringContaining('X-Grid-Signature') } });
  });
});
