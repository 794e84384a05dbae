import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createPlatformWithToken } from '../../src/domain/platforms.js';
import { openServices } from '../../src/domain/services.js';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.js';
import { createTestDatabase } from '../helpers/engines.js';
import { BASE, basicAuth, describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('error model', (t) => {
  it('answers an unknown path and an unknown version with the 404 Error object', async () => {
    for (const url of [`${BASE}/nothing-here`, '/2024-01-01/tokens', '/tokens', '/']) {
      const res = await t.app.inject({ url, headers: { authorization: t.caller.auth } });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ status: 404, code: 'NOT_FOUND', message: expect.any(String) });
    }
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.caller.req('PUT', '/tokens', { name: 'x' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.json()).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    const param = await t.caller.req('PATCH', '/tokens/Token:abc', {});
    expect(param.statusCode).toBe(405);
    expect(param.headers.allow).toBe('GET, DELETE');
  });

  it('answers malformed JSON with 400 INVALID_REQUEST_FORMAT', async () => {
    for (const payload of ['{"name": ', '{name: 1}', '[1,2', '{"__proto__": {"x": 1}}']) {
      const res = await t.caller.req('POST', '/tokens', payload, { 'content-type': 'application/json' });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, code: 'INVALID_REQUEST_FORMAT' });
    }
    const empty = await t.caller.req('POST', '/tokens', '', { 'content-type': 'application/json' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ status: 400, code: 'INVALID_REQUEST_FORMAT' });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024), permissions: ['VIEW'] });
    const res = await t.caller.req('POST', '/tokens', big, { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers a non-JSON body with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await t.caller.req('POST', '/tokens', 'name=x', { 'content-type': type });
      expect(res.statusCode, type).toBe(415);
      expect(res.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('reports every invalid field of a body at once, each with its constraint', async () => {
    const res = await t.caller.req('POST', '/tokens', { name: '', permissions: ['VIEW', 'ADMIN', 'VIEW'], colour: 'blue' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    const byField = Object.fromEntries(body.details.errors.map((e: { field: string }) => [e.field, e]));
    expect(Object.keys(byField).sort()).toEqual(['colour', 'name', 'permissions', 'permissions[1]']);
    expect(byField.name.constraint).toEqual({ minLength: 1 });
    expect(byField['permissions[1]'].constraint).toEqual({ enum: ['VIEW', 'TRANSACT', 'MANAGE'] });
    expect(byField.permissions.message).toMatch(/duplicates/);
    expect(byField.colour.message).toMatch(/not a recognised field/);
  });

  it('reports missing required fields and wrong types without coercing the body', async () => {
    const res = await t.caller.req('POST', '/tokens', { permissions: 'VIEW' });
    const errors = res.json().details.errors as { field: string; message: string }[];
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'name', message: 'is required' }),
        expect.objectContaining({ field: 'permissions', message: 'must be an array' }),
      ]),
    );
    const noBody = await t.caller.req('POST', '/tokens');
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().code).toBe('INVALID_INPUT');
  });

  it('validates query parameters the same way, naming each parameter', async () => {
    const res = await t.caller.req('GET', '/tokens?limit=500&cursor=&page=2');
    expect(res.statusCode).toBe(400);
    const fields = res.json().details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['cursor', 'limit', 'page']);
    expect((await t.caller.req('GET', '/tokens?limit=abc')).json().details.errors[0]).toMatchObject({ field: 'limit', message: 'must be an integer' });
  });

  it('puts X-Request-Id on every response and keeps one the client sent', async () => {
    const mine = await t.caller.req('GET', '/tokens', undefined, { 'x-request-id': 'client-chosen-id-1' });
    expect(mine.headers['x-request-id']).toBe('client-chosen-id-1');
    for (const res of [await t.caller.req('GET', '/tokens'), await t.caller.req('GET', '/nope'), await t.app.inject({ url: `${BASE}/tokens` })]) {
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('keeps status equal to the HTTP status in every catalogue entry', () => {
    for (const [status, codes] of Object.entries(ERROR_CATALOGUE)) {
      for (const code of Object.keys(codes)) expect(code).toMatch(/^[A-Z_0-9]+$/), expect(Number(status)).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('unexpected failures', () => {
  const logs: string[] = [];
  let app: Awaited<ReturnType<typeof buildApp>>;
  let auth: string;
  let services: Awaited<ReturnType<typeof openServices>>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase('sqlite');
    drop = db.drop;
    services = await openServices(loadConfig({ ...db.env, WORKER_ENABLED: '0' }));
    const { token } = await createPlatformWithToken(services.store, services.tokens, 'p');
    auth = basicAuth(token.clientId, token.clientSecret);
    const stream = new Writable({ write: (chunk, _enc, cb) => (logs.push(chunk.toString()), cb()) });
    app = await buildApp(services, { logger: { level: 'error', stream } });
  });
  afterAll(async () => {
    await app.close();
    await drop();
  });

  it('answers 500 INTERNAL_ERROR with a reference that is in the log, and no internals', async () => {
    await services.store.close(); // the database goes away under a live server
    const res = await app.inject({ url: `${BASE}/tokens`, headers: { authorization: auth } });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toEqual({ status: 500, code: 'INTERNAL_ERROR', message: expect.any(String) });
    const reqId = res.headers['x-request-id'] as string;
    expect(body.message).toContain(reqId);
    expect(body.message).not.toMatch(/sqlite|kysely|at \w+ \(|driver|closed/i);
    expect(logs.join('')).toContain(reqId);
  });
});
