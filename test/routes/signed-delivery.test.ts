import { verify } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { basicAuth, BASE, describeEachEngine } from '../helpers/test-app.js';
import { produceEvent } from '../helpers/webhook-receiver.js';

describeEachEngine('signing an event as a delivery would send it', (t) => {
  it('answers the stored body and headers that verify with the platform\'s secret and public key, with no endpoint set', async () => {
    const caller = await t.newCaller();
    const id = await produceEvent(t, caller);
    const res = await caller.req('POST', `/webhook-events/${id}/signed-delivery`);
    expect(res.statusCode).toBe(200);
    const signed = res.json();
    const stored = await t.services.store.db.selectFrom('webhook_events').select('body').where('id', '=', id).executeTakeFirstOrThrow();
    expect(signed).toMatchObject({ id, type: 'CARD_TRANSACTION.AUTHORIZED', body: stored.body });
    expect(signed.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': id });
    const config = (await caller.req('GET', '/config')).json();
    expect(new Webhook(config.webhookSecret).verify(signed.body, signed.headers)).toEqual(JSON.parse(stored.body));
    expect(verify('sha256', Buffer.from(signed.body), config.webhookPublicKey, Buffer.from(signed.headers['x-grid-signature'], 'base64'))).toBe(true);
    // Nothing was sent or queued again.
    expect((await caller.req('GET', `/webhook-events/${id}`)).json()).toMatchObject({ attemptCount: 0 });
  });

  it('answers another platform\'s event like an unknown one, and refuses a VIEW token', async () => {
    const owner = await t.newCaller();
    const other = await t.newCaller();
    const id = await produceEvent(t, owner);
    const foreign = await other.req('POST', `/webhook-events/${id}/signed-delivery`);
    const unknown = await other.req('POST', '/webhook-events/Webhook:01900000-0000-7000-8000-000000000000/signed-delivery');
    expect([foreign.statusCode, unknown.statusCode]).toEqual([404, 404]);
    expect(foreign.json().message).toBe(unknown.json().message.replace('Webhook:01900000-0000-7000-8000-000000000000', id));
    const view = (await owner.req('POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] })).json();
    const denied = await t.app.inject({ method: 'POST', url: `${BASE}/webhook-events/${id}/signed-delivery`, headers: { authorization: basicAuth(view.clientId, view.clientSecret) } });
    expect(denied.statusCode).toBe(403);
  });
});
