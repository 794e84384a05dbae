import { connect, createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createPlatformWithToken } from '../../src/domain/platform/platforms.js';
import { openServices } from '../../src/services.js';
import { createTestDatabase } from '../helpers/engines.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { activeCard, injectCall, insertTestCustomer, usdAccountOf } from '../helpers/fixtures.js';
import type { FieldErrorBody } from '../helpers/owners.js';
import { BASE, basicAuth, describeEachEngine } from '../helpers/test-app.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describeEachEngine('error model', (t) => {
  it('answers an unknown path and an unknown version with the 404 Error object', async () => {
    for (const url of [`${BASE}/nothing-here`, '/2024-01-01/tokens', '/tokens', '/']) {
      const res = await t.app.inject({ url, headers: { authorization: t.caller.auth } });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ status: 404, code: 'REFERENCE_NOT_FOUND', message: expect.any(String) });
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

  it('puts a fresh, random X-Request-Id on every response, never one the client chose', async () => {
    const ids = new Set<string>();
    for (const chosen of ['client-chosen-id-1', 'x'.repeat(200), 'two words', '💩']) {
      const res = await t.caller.req('GET', '/tokens', undefined, { 'x-request-id': chosen });
      expect(res.headers['x-request-id'], chosen).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      ids.add(res.headers['x-request-id'] as string);
    }
    expect(ids.size).toBe(4);
    const answers = {
      ok: await t.caller.req('GET', '/tokens'),
      'unknown path': await t.caller.req('GET', '/nope'),
      'no credentials': await t.app.inject({ url: `${BASE}/tokens` }),
      'bad percent-encoding': await t.caller.req('GET', '/tokens/%E0%A4%A'),
      'id longer than the router takes': await t.caller.req('GET', `/tokens/${'x'.repeat(300)}`),
    };
    for (const [label, res] of Object.entries(answers)) expect(res.headers['x-request-id'], label).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers every kind of failure with an Error object whose status is the HTTP status and whose code belongs to it', async () => {
    const h = { authorization: t.caller.auth };
    const json = { 'content-type': 'application/json' };
    const unknownId = (type: string) => `${type}:0190ffff-0000-7000-8000-000000000000`;
    const holder = await insertTestCustomer(t, t.caller);
    const card = (await activeCard(t, t.caller, holder)).id as string;
    const otherCard = (await activeCard(t, t.caller, holder)).id as string;
    const closedCard = (await activeCard(t, t.caller, holder)).id as string;
    await t.caller.req('PATCH', `/cards/${closedCard}`, { state: 'CLOSED' });
    const unapproved = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const unapprovedAccount = await usdAccountOf(injectCall(t.caller), unapproved);
    const authorization = { amount: 1000, currency: { code: 'USD' }, merchant: { descriptor: 'CORNER SHOP' } };
    const txn = (await t.caller.req('POST', `/sandbox/cards/${card}/simulate/authorization`, authorization)).json<{ cardTransactionId: string }>().cardTransactionId;
    const other = await t.newCaller();
    const theirCustomer = await insertTestCustomer(t, other);
    const production = await t.newCaller('production');
    const revoked = await t.newCaller();
    await revoked.req('DELETE', `/tokens/${revoked.tokenId}`);
    const deadEndpoint = await t.newCaller();
    await deadEndpoint.req('PATCH', '/config', { webhookEndpoint: `http://127.0.0.1:${await closedPort()}/hooks` });
    const raw = (method: InjectOptions['method'], url: string, headers: Record<string, string> = {}, payload?: string) => t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });

    const cases: [label: string, status: number, code: string, send: () => Promise<LightMyRequestResponse>][] = [
      ['unknown path', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('GET', '/nothing-here')],
      ['unknown version', 404, 'REFERENCE_NOT_FOUND', () => raw('GET', '/2024-01-01/tokens', h)],
      ['no version', 404, 'REFERENCE_NOT_FOUND', () => raw('GET', '/tokens', h)],
      ['id longer than the router takes', 400, 'INVALID_REQUEST_FORMAT', () => t.caller.req('GET', `/tokens/${'x'.repeat(300)}`)],
      ['id longer than the schema allows', 400, 'INVALID_INPUT', () => t.caller.req('GET', `/tokens/${'x'.repeat(150)}`)],
      ['bad percent-encoding', 400, 'INVALID_REQUEST_FORMAT', () => t.caller.req('GET', '/tokens/%E0%A4%A')],
      ['wrong method', 405, 'METHOD_NOT_ALLOWED', () => t.caller.req('PUT', '/tokens', { name: 'x' })],
      ['wrong method on an id path', 405, 'METHOD_NOT_ALLOWED', () => t.caller.req('POST', `/cards/${card}`, {})],
      ['malformed JSON', 400, 'INVALID_REQUEST_FORMAT', () => t.caller.req('POST', '/customers', '{"customerType": ', json)],
      ['empty JSON body', 400, 'INVALID_REQUEST_FORMAT', () => t.caller.req('PATCH', '/config', '', json)],
      ['body over 1 MiB', 413, 'PAYLOAD_TOO_LARGE', () => t.caller.req('POST', '/beneficial-owners', JSON.stringify({ customerId: 'x'.repeat(1024 * 1024) }), json)],
      ['text body', 415, 'UNSUPPORTED_MEDIA_TYPE', () => t.caller.req('POST', '/cards', 'cardholderId=x', { 'content-type': 'text/plain' })],
      ['form body', 415, 'UNSUPPORTED_MEDIA_TYPE', () => t.caller.req('PATCH', '/config', 'webhookEndpoint=x', { 'content-type': 'application/x-www-form-urlencoded' })],
      ['invalid body fields', 400, 'INVALID_INPUT', () => t.caller.req('POST', '/beneficial-owners', { customerId: holder, roles: ['KING'], ownershipPercentage: 101 })],
      ['wrong type, not coerced', 400, 'INVALID_INPUT', () => t.caller.req('POST', `/sandbox/cards/${card}/simulate/authorization`, { ...authorization, amount: '1000' })],
      ['control character in a field', 400, 'INVALID_INPUT', () => t.caller.req('POST', '/tokens', { name: 'a\u0000b', permissions: ['VIEW'] })],
      ['control character in a query parameter', 400, 'INVALID_INPUT', () => t.caller.req('GET', '/beneficial-owners?customerId=Customer:%00')],
      ['control character in a path parameter', 400, 'INVALID_INPUT', () => t.caller.req('GET', '/cards/Card:%00')],
      ['invalid query parameter', 400, 'INVALID_INPUT', () => t.caller.req('GET', '/customers?limit=0')],
      ['unknown query parameter', 400, 'INVALID_INPUT', () => t.caller.req('GET', `/transactions?cardId=${card}&sort=desc`)],
      ['forged cursor', 400, 'INVALID_INPUT', () => t.caller.req('GET', '/webhook-events?cursor=bm90LWEtY3Vyc29y')],
      ['list of a foreign customer', 400, 'INVALID_INPUT', () => t.caller.req('GET', `/beneficial-owners?customerId=${theirCustomer}`)],
      ['negative clearing amount', 400, 'INVALID_INPUT', () => t.caller.req('POST', `/sandbox/cards/${card}/simulate/clearing`, { cardTransactionId: txn, amount: -1 })],
      ['test webhook without an endpoint', 400, 'WEBHOOK_ENDPOINT_NOT_SET', () => other.req('POST', '/sandbox/webhooks/test')],
      ['test webhook to an endpoint that is down', 400, 'WEBHOOK_DELIVERY_ERROR', () => deadEndpoint.req('POST', '/sandbox/webhooks/test')],
      ['unknown token', 404, 'TOKEN_NOT_FOUND', () => t.caller.req('GET', `/tokens/${unknownId('Token')}`)],
      ['revoking an unknown token', 404, 'TOKEN_NOT_FOUND', () => t.caller.req('DELETE', `/tokens/${unknownId('Token')}`)],
      ['unknown customer', 404, 'USER_NOT_FOUND', () => t.caller.req('GET', `/customers/${unknownId('Customer')}`)],
      ['foreign customer', 404, 'USER_NOT_FOUND', () => t.caller.req('GET', `/customers/${theirCustomer}`)],
      ['unknown owner', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('GET', `/beneficial-owners/${unknownId('BeneficialOwner')}`)],
      ['patching an unknown owner', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('PATCH', `/beneficial-owners/${unknownId('BeneficialOwner')}`, { ownershipPercentage: 10 })],
      ['unknown card', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('GET', `/cards/${unknownId('Card')}`)],
      ['changing an unknown card', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('PATCH', `/cards/${unknownId('Card')}`, { state: 'FROZEN' })],
      ['card for a cardholder not approved', 400, 'CARDHOLDER_KYC_NOT_APPROVED', () => t.caller.req('POST', '/cards', { cardholderId: unapproved, form: 'VIRTUAL', fundingSources: [unapprovedAccount] })],
      ["card funded by another customer's account", 400, 'FUNDING_SOURCE_INELIGIBLE', () => t.caller.req('POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [unapprovedAccount] })],
      ['unfreezing an active card', 409, 'INVALID_STATE_TRANSITION', () => t.caller.req('PATCH', `/cards/${card}`, { state: 'ACTIVE' })],
      ['closing a closed card', 409, 'CARD_ALREADY_CLOSED', () => t.caller.req('PATCH', `/cards/${closedCard}`, { state: 'CLOSED' })],
      ['funding sources of a closed card', 409, 'CARD_NOT_MUTABLE', () => t.caller.req('PATCH', `/cards/${closedCard}`, { fundingSources: [unapprovedAccount] })],
      ['KYC of an unknown customer', 404, 'USER_NOT_FOUND', () => t.caller.req('POST', `/sandbox/customers/${unknownId('Customer')}/kyc`, { status: 'APPROVED' })],
      ['unknown transaction', 404, 'TRANSACTION_NOT_FOUND', () => t.caller.req('GET', `/transactions/${unknownId('CardTransaction')}`)],
      ['unknown webhook event', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('GET', `/webhook-events/${unknownId('Webhook')}`)],
      ['redelivering an unknown event', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('POST', `/webhook-events/${unknownId('Webhook')}/redeliver`)],
      ['simulation on an unknown card', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('POST', `/sandbox/cards/${unknownId('Card')}/simulate/authorization`, authorization)],
      ['simulation on a transaction of another card', 404, 'TRANSACTION_NOT_FOUND', () => t.caller.req('POST', `/sandbox/cards/${otherCard}/simulate/clearing`, { cardTransactionId: txn, amount: 10 })],
      ['simulation on an unknown transaction', 404, 'TRANSACTION_NOT_FOUND', () => t.caller.req('POST', `/sandbox/cards/${card}/simulate/clearing`, { cardTransactionId: unknownId('CardTransaction'), amount: 10 })],
      ['funding an unknown internal account', 404, 'REFERENCE_NOT_FOUND', () => t.caller.req('POST', `/sandbox/internal-accounts/${unknownId('InternalAccount')}/fund`, { amount: 1 })],
      ['sandbox path with a production token', 404, 'REFERENCE_NOT_FOUND', () => production.req('POST', `/sandbox/cards/${card}/simulate/authorization`, authorization)],
      ['return on an authorized transaction', 409, 'INVALID_STATE_TRANSITION', () => t.caller.req('POST', `/sandbox/cards/${card}/simulate/return`, { cardTransactionId: txn, amount: 10 })],
      ['return reversal on an authorized transaction', 409, 'INVALID_STATE_TRANSITION', () => t.caller.req('POST', `/sandbox/cards/${card}/simulate/return_reversal`, { cardTransactionId: txn })],
      ['no credentials', 401, 'UNAUTHORIZED', () => raw('GET', `${BASE}/tokens`)],
      ['no credentials on an unknown path', 401, 'UNAUTHORIZED', () => raw('GET', `${BASE}/nothing-here`)],
      ['wrong secret', 401, 'UNAUTHORIZED', () => raw('GET', `${BASE}/tokens`, { authorization: basicAuth(t.caller.clientId, 'not-the-secret') })],
      ['malformed credentials', 401, 'UNAUTHORIZED', () => raw('GET', `${BASE}/tokens`, { authorization: 'Basic %%%' })],
      ['control character in the client id', 401, 'UNAUTHORIZED', () => raw('GET', `${BASE}/tokens`, { authorization: basicAuth(`Token:\u0000${t.caller.clientId}`, t.caller.clientSecret) })],
      ['bearer token', 401, 'UNAUTHORIZED', () => raw('GET', `${BASE}/tokens`, { authorization: 'Bearer abc' })],
      ['revoked token', 401, 'UNAUTHORIZED', () => revoked.req('GET', '/tokens')],
    ];
    for (const [label, status, code, send] of cases) {
      const res = await send();
      expect.soft(res.statusCode, `${label}: ${res.body}`).toBe(status);
      if (res.statusCode !== status) continue;
      expect(expectErrorObject(res, label).code, label).toBe(code);
    }
    // Control characters are refused on the field that holds them, whatever part of the request it is in.
    const fieldOf = async (res: Promise<LightMyRequestResponse>) => (await res).json<FieldErrorBody>().details?.errors?.map((e) => [e.field, e.message]);
    expect(await fieldOf(t.caller.req('POST', '/tokens', { name: 'a\u0000b', permissions: ['VIEW'] }))).toEqual([['name', 'must not contain control characters']]);
    expect(await fieldOf(t.caller.req('GET', '/beneficial-owners?customerId=Customer:%00'))).toEqual([['customerId', 'must not contain control characters']]);
    expect(await fieldOf(t.caller.req('GET', '/cards/Card:%1F'))).toEqual([['id', 'must not contain control characters']]);
  });
});

describeEachEngine('error model over a real connection', (t) => {
  it("answers the HTTP parser's own refusals (a malformed request, oversize headers) with the Error object", async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const cases = {
      'malformed request line': 'NOT A REQUEST\r\n\r\n',
      'oversize headers': `GET ${BASE}/tokens HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
      'bad header line': `GET ${BASE}/tokens HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n`,
    };
    for (const [label, raw] of Object.entries(cases)) {
      const answer = await rawExchange(port, raw);
      const [head, body] = [answer.slice(0, answer.indexOf('\r\n\r\n')), answer.slice(answer.indexOf('\r\n\r\n') + 4)];
      const statusCode = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const headers = Object.fromEntries(head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      expect(statusCode, `${label}: ${answer}`).toBe(400);
      expect(expectErrorObject({ statusCode, headers, body } as unknown as LightMyRequestResponse, label).code, label).toBe('INVALID_REQUEST_FORMAT');
      expect(headers['x-request-id'], label).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

/** Sends raw bytes on a new connection and returns everything the server answers before it closes. */
function rawExchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

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
    expect(expectErrorObject(res, 'database gone')).toEqual({ status: 500, code: 'INTERNAL_ERROR', message: expect.any(String) });
    const reqId = res.headers['x-request-id'] as string;
    expect(body.message).toContain(reqId);
    expect(body.message).not.toMatch(/sqlite|kysely|at \w+ \(|driver|closed/i);
    expect(logs.join('')).toContain(reqId);
  });
});
