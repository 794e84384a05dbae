import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RequestLog } from '../../src/domain/request-logs/request-log.js';
import { buildApp } from '../../src/app.js';
import { basicAuth, BASE, describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';
import { businessCustomer } from '../helpers/owners.js';

/** Every stored column of every entry of the platform, as one text: what a leak would show up in. */
async function storedText(t: TestApp, platformId: string): Promise<string> {
  return JSON.stringify(await t.services.store.db.selectFrom('request_logs').selectAll().where('platform_id', '=', platformId).execute());
}

async function entry(caller: Caller, id: string) {
  const res = await caller.req('GET', `/request-logs/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describeEachEngine('request log', (t) => {
  it('records each request under the X-Request-Id it answered: method, path, status, duration, token, time and bodies', async () => {
    const caller = await t.newCaller();
    const before = Date.now();
    const created = await caller.req('POST', '/customers', businessCustomer(), { 'x-request-id': 'my-trace-1' });
    expect(created.statusCode).toBe(201);
    const id = created.headers['x-request-id'] as string;
    const logged = await entry(caller, id);
    expect(logged).toMatchObject({ id, method: 'POST', path: `${BASE}/customers`, status: 201, tokenId: caller.tokenId, clientRequestId: 'my-trace-1' });
    expect(logged.durationMs).toBeGreaterThan(0);
    expect(Date.parse(logged.createdAt)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(logged.createdAt)).toBeLessThanOrEqual(Date.now());
    expect(JSON.parse(logged.requestBody)).toMatchObject({ customerType: 'BUSINESS' });
    expect(JSON.parse(logged.responseBody)).toMatchObject({ id: created.json().id });

    const missing = await caller.req('GET', '/customers/Customer:01900000-0000-7000-8000-000000000000?x=1');
    expect(await entry(caller, missing.headers['x-request-id'] as string)).toMatchObject({ status: 404, method: 'GET', path: `${BASE}/customers/Customer:01900000-0000-7000-8000-000000000000`, query: 'x=1' });
  });

  it('lists newest first, page by page, filtered by method, path, status and time; its own reads are not logged', async () => {
    const caller = await t.newCaller();
    const ids: string[] = [];
    const send = async (method: 'GET' | 'POST', url: string, body?: unknown) => ids.push((await caller.req(method, url, body)).headers['x-request-id'] as string);
    await send('GET', '/customers');
    await send('POST', '/customers', businessCustomer());
    await send('GET', '/customers?limit=0');
    const middle = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await send('GET', '/tokens');
    await send('POST', '/tokens', { name: 'n', permissions: ['VIEW'] });

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await caller.req('GET', `/request-logs?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json();
      expect(page.totalCount).toBe(5);
      seen.push(...page.data.map((e: { id: string }) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const ofFilter = async (query: string) => (await caller.req('GET', `/request-logs?${query}`)).json().data.map((e: { id: string }) => e.id);
    expect(await ofFilter('method=POST')).toEqual([ids[4], ids[1]]);
    expect(await ofFilter(`path=${encodeURIComponent(`${BASE}/customers`)}`)).toEqual([ids[2], ids[1], ids[0]]);
    expect(await ofFilter('status=400')).toEqual([ids[2]]);
    expect(await ofFilter(`from=${middle}`)).toEqual([ids[4], ids[3]]);
    expect(await ofFilter(`to=${middle}`)).toEqual([ids[2], ids[1], ids[0]]);
    expect(await ofFilter(`method=GET&path=${encodeURIComponent(`${BASE}/tokens`)}&status=200`)).toEqual([ids[3]]);

    const bad = await caller.req('GET', '/request-logs?method=FETCH&status=7&from=yesterday&path=nope&extra=1');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['extra', 'from', 'method', 'path', 'status']);
    const cursorOfPost = (await caller.req('GET', '/request-logs?limit=1&method=POST')).json().nextCursor;
    expect((await caller.req('GET', `/request-logs?limit=1&cursor=${cursorOfPost}`)).json().details.errors[0].field).toBe('cursor');
  });

  it('never stores the Authorization header, client secrets, webhook secrets, card numbers or document bytes', async () => {
    const caller = await t.newCaller();
    const token = (await caller.req('POST', '/tokens', { name: 'leaky', permissions: ['VIEW'] })).json();
    const config = await caller.req('PATCH', '/config', { webhookEndpoint: 'http://127.0.0.1:9/hooks' });
    const webhookSecret = config.json().webhookSecret as string;
    expect(webhookSecret).toMatch(/^whsec_/);
    const rotated = (await caller.req('POST', '/config/webhook-secret/rotate')).json().webhookSecret as string;
    await caller.req('GET', '/config');
    await caller.req('POST', '/customers', { ...businessCustomer(), businessInfo: { legalName: 'Card 4111 1111 1111 1111 Inc' }, note: '5555555555554444' });
    await caller.req('GET', '/customers?platformCustomerId=4012888888881881');
    const documentBytes = 'JVBERi0xLjQKc2VjcmV0IGRvY3VtZW50IGJ5dGVz';
    const upload = await t.app.inject({
      method: 'POST',
      url: `${BASE}/customers`,
      headers: { authorization: caller.auth, 'content-type': 'multipart/form-data; boundary=x' },
      payload: `--x\r\nContent-Disposition: form-data; name="file"; filename="id.pdf"\r\n\r\n${documentBytes}\r\n--x--\r\n`,
    });
    const viewer = basicAuth(token.clientId, token.clientSecret);
    await t.app.inject({ method: 'GET', url: `${BASE}/customers`, headers: { authorization: viewer } });

    await caller.req('GET', '/request-logs');
    const stored = await storedText(t, caller.platformId);
    expect(stored).toContain('[REDACTED]');
    for (const secret of [token.clientSecret, webhookSecret, rotated, rotated.slice('whsec_'.length), caller.clientSecret, caller.auth, caller.auth.slice('Basic '.length), viewer.slice('Basic '.length), documentBytes]) {
      expect(stored.includes(secret), secret).toBe(false);
    }
    for (const pan of ['4111 1111 1111 1111', '5555555555554444', '4012888888881881']) expect(stored.includes(pan), pan).toBe(false);
    expect(JSON.parse((await entry(caller, upload.headers['x-request-id'] as string)).requestBody)).toEqual({ omitted: expect.stringMatching(/^multipart\/form-data; boundary=x body, \d+ bytes$/) });
  });

  it('scopes the log to the platform and environment; unauthenticated requests are not logged', async () => {
    const owner = await t.newCaller();
    const other = await t.newCaller();
    const production = await t.newCaller('production', owner);
    const id = (await owner.req('GET', '/customers')).headers['x-request-id'] as string;
    await entry(owner, id);
    for (const stranger of [other, production]) {
      const res = await stranger.req('GET', `/request-logs/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      const unknown = await stranger.req('GET', '/request-logs/00000000-0000-4000-8000-000000000000');
      expect(unknown.json().message.replace('00000000-0000-4000-8000-000000000000', id)).toBe(res.json().message);
      expect((await stranger.req('GET', '/request-logs')).json().data.map((e: { id: string }) => e.id)).not.toContain(id);
    }
    const anonymous = await t.app.inject({ method: 'GET', url: `${BASE}/customers` });
    expect(anonymous.statusCode).toBe(401);
    await owner.req('GET', '/request-logs');
    const rows = await t.services.store.db.selectFrom('request_logs').select('id').where('id', '=', anonymous.headers['x-request-id'] as string).execute();
    expect(rows).toEqual([]);
  });

  it('writes what it buffered when the app closes, without a read to flush it', async () => {
    const caller = await t.newCaller();
    const app = await buildApp(t.services);
    const res = await app.inject({ method: 'GET', url: `${BASE}/customers`, headers: { authorization: caller.auth } });
    await app.close();
    const rows = await t.services.store.db.selectFrom('request_logs').select(['id', 'status']).where('id', '=', res.headers['x-request-id'] as string).execute();
    expect(rows).toEqual([{ id: res.headers['x-request-id'], status: 200 }]);
  });

  it('holds a bounded buffer: past it entries are dropped and counted, never blocking the request', async () => {
    const caller = await t.newCaller();
    const log = new RequestLog(t.services.store, t.services.cursors, { enabled: true, bodyChars: 100, maxBuffered: 2, batchSize: 10 });
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) log.record({ id, platformId: caller.platformId, tokenId: caller.tokenId, method: 'GET', url: '/x?card=4111111111111111', status: 200, durationMs: 1.5 });
    expect(log.dropped).toBe(1);
    const page = await log.list(caller.platformId, 10, undefined, {});
    expect(page.data.map((e) => e.id).sort()).toEqual(ids.slice(0, 2).sort());
    expect(page.data[0]).toMatchObject({ path: '/x', query: 'card=[REDACTED PAN]', durationMs: 1.5 });
  });

  it('sheds what it cannot afford to write: no writing time left, an entry is neither captured nor kept, and is counted', async () => {
    const caller = await t.newCaller();
    const entry = (id: string) => ({ id, platformId: caller.platformId, tokenId: caller.tokenId, method: 'GET', url: '/x', status: 200, durationMs: 1 });
    const broke = new RequestLog(t.services.store, t.services.cursors, { enabled: true, bodyChars: 100, writeShare: 0, maxBankedMs: 0 });
    expect(broke.accepting()).toBe(false);
    broke.record(entry(randomUUID()));
    expect(broke.dropped).toBe(2);
    expect((await broke.list(caller.platformId, 10, undefined, {})).data).toEqual([]);
    const funded = new RequestLog(t.services.store, t.services.cursors, { enabled: true, bodyChars: 100 });
    expect(funded.accepting()).toBe(true);
    const id = randomUUID();
    funded.record(entry(id));
    expect((await funded.list(caller.platformId, 10, undefined, {})).data.map((e) => e.id)).toEqual([id]);
  });

  it('cuts bodies at REQUEST_LOG_BODY_CHARS', async () => {
    const caller = await t.newCaller();
    const body = { junk: 'x'.repeat(5_000), name: 'n', permissions: ['VIEW'] };
    const res = await caller.req('POST', '/tokens', body);
    expect(res.statusCode).toBe(400);
    const logged = await entry(caller, res.headers['x-request-id'] as string);
    expect(logged.requestBody).toBe(`{"junk":"${'x'.repeat(4_000 - 9)}...[${JSON.stringify(body).length - 4_000} more characters cut]`);
  });
}, { REQUEST_LOG_BODY_CHARS: '4000' });

describeEachEngine(
  'request log turned off',
  (t) => {
    let app: Awaited<ReturnType<typeof buildApp>>;
    beforeAll(async () => {
      app = await buildApp(t.services);
    });
    afterAll(() => app.close());
    it('records nothing with REQUEST_LOG_ENABLED=0', async () => {
      const res = await t.caller.req('GET', '/customers');
      expect((await t.caller.req('GET', `/request-logs/${res.headers['x-request-id'] as string}`)).statusCode).toBe(404);
      expect((await t.caller.req('GET', '/request-logs')).json()).toEqual({ data: [], hasMore: false, totalCount: 0 });
      expect(await t.services.store.db.selectFrom('request_logs').select('id').execute()).toEqual([]);
    });
  },
  { REQUEST_LOG_ENABLED: '0' },
);
