import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('platform configuration', (t) => {
  it('creates a whsec_ secret of at least 24 random bytes on first read, stable afterwards', async () => {
    const caller = await t.newCaller();
    const first = await caller.req('GET', '/config');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.id).toMatch(/^PlatformConfig:/);
    expect(body.webhookEndpoint).toBeUndefined();
    expect(body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(body.webhookSecret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect((await caller.req('GET', '/config')).json().webhookSecret).toBe(body.webhookSecret);
  });

  it('sets, keeps and clears the webhook endpoint', async () => {
    const caller = await t.newCaller();
    const set = await caller.req('PATCH', '/config', { webhookEndpoint: 'https://api.example.com/hooks?x=1' });
    expect(set.statusCode).toBe(200);
    expect(set.json().webhookEndpoint).toBe('https://api.example.com/hooks?x=1');
    expect((await caller.req('PATCH', '/config', {})).json().webhookEndpoint).toBe('https://api.example.com/hooks?x=1');
    expect((await caller.req('GET', '/config')).json().webhookEndpoint).toBe('https://api.example.com/hooks?x=1');
    const cleared = await caller.req('PATCH', '/config', { webhookEndpoint: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().webhookEndpoint).toBeUndefined();
  });

  it.each([
    ['not a url', 'format'],
    ['/relative/path', 'format'],
    ['ftp://example.com/hook', 'scheme'],
    ['mailto:ops@example.com', 'scheme'],
    ['https://user:pw@example.com/hook', 'credentials'],
    [`https://example.com/${'a'.repeat(2100)}`, 'length'],
    [42, 'type'],
  ])('refuses webhookEndpoint %j (%s) with INVALID_INPUT on the field', async (value, _why) => {
    const res = await t.caller.req('PATCH', '/config', { webhookEndpoint: value });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(body.details.errors.map((e: { field: string }) => e.field)).toEqual(['webhookEndpoint']);
  });

  it('refuses unknown fields and non-JSON bodies', async () => {
    const res = await t.caller.req('PATCH', '/config', { webhookEndpoint: 'https://example.com/h', umaDomain: 'x.com' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors).toEqual([expect.objectContaining({ field: 'umaDomain' })]);
    const bad = await t.caller.req('PATCH', '/config', '{"webhookEndpoint":', { 'content-type': 'application/json' });
    expect(bad.json().code).toBe('INVALID_REQUEST_FORMAT');
  });

  it('rotates the secret and reports the previous one\'s window', async () => {
    const caller = await t.newCaller();
    const before = (await caller.req('GET', '/config')).json();
    expect(before.previousWebhookSecretExpiresAt).toBeUndefined();
    const rotated = await caller.req('POST', '/config/webhook-secret/rotate');
    expect(rotated.statusCode).toBe(200);
    const after = rotated.json();
    expect(after.webhookSecret).toMatch(/^whsec_/);
    expect(after.webhookSecret).not.toBe(before.webhookSecret);
    const expires = Date.parse(after.previousWebhookSecretExpiresAt);
    expect(expires - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('keeps each platform\'s configuration to itself', async () => {
    const a = await t.newCaller();
    const b = await t.newCaller();
    await a.req('PATCH', '/config', { webhookEndpoint: 'https://a.example.com/hooks' });
    const bConfig = (await b.req('GET', '/config')).json();
    expect(bConfig.webhookEndpoint).toBeUndefined();
    expect(bConfig.webhookSecret).not.toBe((await a.req('GET', '/config')).json().webhookSecret);
  });

  it('needs credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/2025-10-13/config' });
    expect(res.statusCode).toBe(401);
  });
});
