import { expect, it } from 'vitest';
import { BASE, basicAuth, describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('authentication', (t) => {
  const get = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: `${BASE}/tokens`, headers: authorization === undefined ? {} : { authorization } });

  it('accepts the clientId and the token id as the Basic username', async () => {
    expect((await get(t.caller.auth)).statusCode).toBe(200);
    expect((await get(basicAuth(t.caller.tokenId, t.caller.clientSecret))).statusCode).toBe(200);
  });

  it('answers every bad credential with the same 401 and a Basic challenge, never saying which part was wrong', async () => {
    const other = await t.newCaller();
    const cases = [
      undefined,
      '',
      'Basic',
      'Basic !!!not-base64!!!',
      `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
      basicAuth(t.caller.clientId, 'wrong-secret'),
      basicAuth(t.caller.clientId, other.clientSecret),
      basicAuth('0'.repeat(32), t.caller.clientSecret),
      basicAuth('Token:00000000-0000-7000-8000-000000000000', t.caller.clientSecret),
      basicAuth('not a client id', 'x'),
      `Digest username="${t.caller.clientId}"`,
      `Basic ${'A'.repeat(600)}`,
    ];
    const bodies = new Set<string>();
    for (const header of cases) {
      const res = await get(header);
      expect(res.statusCode, String(header)).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
      const body = res.json();
      expect(body).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      bodies.add(body.message);
    }
    expect(bodies.size).toBe(1);
  });

  it('refuses a bearer token on a basic-only operation with its own message', async () => {
    const res = await get('Bearer some-agent-access-token');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic/);
    expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(res.json().message).toMatch(/basic credentials/i);
  });

  it('stops accepting a token the moment it is revoked', async () => {
    const created = (await t.caller.req('POST', '/tokens', { name: 'short-lived', permissions: ['VIEW'] })).json();
    const auth = basicAuth(created.clientId, created.clientSecret);
    expect((await get(auth)).statusCode).toBe(200);
    expect((await t.caller.req('DELETE', `/tokens/${created.id}`)).statusCode).toBe(204);
    expect((await get(auth)).statusCode).toBe(401);
  });

  it('asks for credentials before saying a path is unknown', async () => {
    const anon = await t.app.inject({ method: 'GET', url: `${BASE}/no-such-thing` });
    expect(anon.statusCode).toBe(401);
    const authed = await t.caller.req('GET', '/no-such-thing');
    expect(authed.statusCode).toBe(404);
  });

  it('serves health, the OpenAPI document and the docs page without credentials', async () => {
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `${BASE}/openapi.json` })).statusCode).toBe(200);
    const docs = await t.app.inject({ url: `${BASE}/docs/` });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/html/);
  });
});
