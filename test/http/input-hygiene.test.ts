import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createPlatformWithToken } from '../../src/domain/platform/platforms.js';
import { openServices } from '../../src/services.js';
import { createTestDatabase } from '../helpers/engines.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { businessCustomer, createBusiness, ownerInput } from '../helpers/owners.js';
import { BASE, basicAuth, describeEachEngine } from '../helpers/test-app.js';

interface FieldError {
  field: string;
  constraint?: Record<string, unknown>;
  message?: string;
}

const fields = (body: { details?: { errors?: FieldError[] } }) => (body.details?.errors ?? []).map((e) => e.field).sort();

describeEachEngine('input hygiene', (t) => {
  it('refuses text that is only whitespace, every such field in one 400 with its constraint', async () => {
    const customer = businessCustomer(1);
    customer.businessInfo.legalName = '   ';
    customer.businessInfo.taxId = '\u00a0 ';
    customer.address.line1 = ' ';
    const res = await t.caller.req('POST', '/customers', customer);
    const body = expectErrorObject(res, 'blank customer');
    expect(res.statusCode).toBe(400);
    expect(body.code).toBe('INVALID_INPUT');
    expect(fields(body)).toEqual(['address.line1', 'businessInfo.legalName', 'businessInfo.taxId']);
    for (const e of (body.details as { errors: FieldError[] }).errors) expect(e).toEqual({ field: e.field, constraint: { pattern: '\\S' }, message: 'must not be blank' });

    const customerId = await createBusiness(t.caller);
    const owner = ownerInput(customerId);
    owner.personalInfo.firstName = ' ';
    owner.personalInfo.identifier = '  ';
    const ownerRes = await t.caller.req('POST', '/beneficial-owners', owner);
    expect(ownerRes.statusCode).toBe(400);
    expect(fields(ownerRes.json())).toEqual(['personalInfo.firstName', 'personalInfo.identifier']);

    const token = await t.caller.req('POST', '/tokens', { name: '    ', permissions: ['VIEW'] });
    expect(token.statusCode).toBe(400);
    expect(fields(token.json())).toEqual(['name']);
    // Text with something in it, spaces around included, is still taken.
    expect((await t.caller.req('POST', '/tokens', { name: ' ci ', permissions: ['VIEW'] })).statusCode).toBe(201);
  });

  it('refuses impossible dates and dates before 1900-01-01 for birth and incorporation', async () => {
    const customerId = await createBusiness(t.caller, 2);
    const cases: [string, number][] = [
      ['0001-01-01', 400],
      ['1899-12-31', 400],
      ['2023-02-29', 400],
      ['1985-13-01', 400],
      ['1900-01-01', 201],
      ['2024-02-29', 201],
    ];
    for (const [birthDate, status] of cases) {
      const owner = ownerInput(customerId);
      owner.personalInfo.birthDate = birthDate;
      const res = await t.caller.req('POST', '/beneficial-owners', owner);
      expect(res.statusCode, `${birthDate}: ${res.body}`).toBe(status);
      if (status === 400) {
        const [e] = res.json<{ details: { errors: FieldError[] } }>().details.errors;
        expect(e).toMatchObject({ field: 'personalInfo.birthDate', constraint: { format: 'date' } });
      }
    }
    const early = ownerInput(customerId);
    early.personalInfo.birthDate = '0001-01-01';
    expect((await t.caller.req('POST', '/beneficial-owners', early)).json().details.errors[0].message).toBe('must be 1900-01-01 or later');
    const customer = businessCustomer(3);
    customer.businessInfo.incorporatedOn = '1899-12-31';
    const res = await t.caller.req('POST', '/customers', customer);
    expect(res.statusCode).toBe(400);
    expect(fields(res.json())).toEqual(['businessInfo.incorporatedOn']);
  });

  it('answers a JSON body declared in a charset other than UTF-8 with 415, and takes UTF-8 however it is spelled', async () => {
    for (const type of ['application/json; charset=utf-16', 'application/json;charset=ISO-8859-1', 'application/json; charset="utf-16le"', 'application/json; charset=']) {
      const res = await t.caller.req('POST', '/tokens', JSON.stringify({ name: 'x', permissions: ['VIEW'] }), { 'content-type': type });
      const body = expectErrorObject(res, type);
      expect(res.statusCode, type).toBe(415);
      expect(body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=UTF8', 'application/json']) {
      const res = await t.caller.req('POST', '/tokens', JSON.stringify({ name: 'é', permissions: ['VIEW'] }), { 'content-type': type });
      expect(res.statusCode, type).toBe(201);
      expect(res.json().name).toBe('é');
    }
  });

  it('lists every invalid field of path, query and body in one 400', async () => {
    const longId = 'x'.repeat(129);
    const patch = await t.caller.req('PATCH', `/beneficial-owners/${longId}`, { ownershipPercentage: 101, roles: [] });
    expect(patch.statusCode).toBe(400);
    expect(fields(patch.json())).toEqual(['id', 'ownershipPercentage', 'roles']);

    const simulate = await t.caller.req('POST', `/sandbox/cards/${longId}/simulate/clearing`, { amount: -1, extra: true });
    expect(simulate.statusCode).toBe(400);
    expect(fields(simulate.json())).toEqual(['amount', 'cardTransactionId', 'extra', 'id']);

    const list = await t.caller.req('GET', '/beneficial-owners?limit=0&cursor=&customerId=');
    expect(list.statusCode).toBe(400);
    expect(fields(list.json())).toEqual(['cursor', 'customerId', 'limit']);
  });

  it('lists the reference checks (unknown customer, cardholder, card) with the fields that failed validation', async () => {
    const business = await createBusiness(t.caller, 4);
    const owner = { ...ownerInput('Customer:00000000-0000-7000-8000-000000000000'), ownershipPercentage: 101 };
    const ownerRes = await t.caller.req('POST', '/beneficial-owners', owner);
    expect(ownerRes.statusCode).toBe(400);
    expect(ownerRes.json().details.errors).toEqual([
      expect.objectContaining({ field: 'ownershipPercentage' }),
      { field: 'customerId', message: 'is not a business customer of this platform' },
    ]);
    // A customer that exists is not reported; only the field that is wrong.
    const fine = await t.caller.req('POST', '/beneficial-owners', { ...ownerInput(business), ownershipPercentage: 101 });
    expect(fields(fine.json())).toEqual(['ownershipPercentage']);

    const card = await t.caller.req('POST', '/cards', { cardholderId: 'Customer:nope', form: 'PHYSICAL' });
    expect(card.statusCode).toBe(400);
    expect(fields(card.json())).toEqual(['cardholderId', 'form', 'fundingSources']);
    const transactions = await t.caller.req('GET', '/transactions?cardId=Card:nope&limit=0');
    expect(fields(transactions.json())).toEqual(['cardId', 'limit']);
    const owners = await t.caller.req('GET', '/beneficial-owners?customerId=Customer:nope&limit=0');
    expect(fields(owners.json())).toEqual(['customerId', 'limit']);
    // Another platform's customer is as unknown.
    const other = await t.newCaller();
    const foreign = await other.req('GET', `/beneficial-owners?customerId=${encodeURIComponent(business)}&limit=101`);
    expect(fields(foreign.json())).toEqual(['customerId', 'limit']);
    // An id that is itself malformed is reported once, by validation, and never looked up.
    const long = await t.caller.req('POST', '/cards', { cardholderId: 'x'.repeat(129), form: 'PHYSICAL', fundingSources: ['InternalAccount:any'] });
    expect(long.json().details.errors).toEqual([expect.objectContaining({ field: 'cardholderId', constraint: { maxLength: 128 } }), expect.objectContaining({ field: 'form' })]);
  });
});

describe('a client that aborts mid-body', () => {
  const logs: Record<string, unknown>[] = [];
  let app: Awaited<ReturnType<typeof buildApp>>;
  let auth: string;
  let drop: () => Promise<void>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase('sqlite');
    drop = db.drop;
    const services = await openServices(loadConfig({ ...db.env, WORKER_ENABLED: '0' }));
    close = () => services.store.close();
    const { token } = await createPlatformWithToken(services.store, services.tokens, 'p');
    auth = basicAuth(token.clientId, token.clientSecret);
    const stream = new Writable({ write: (chunk, _enc, cb) => (logs.push(JSON.parse(chunk.toString()) as Record<string, unknown>), cb()) });
    app = await buildApp(services, { logger: { level: 'info', stream } });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app.close();
    await close();
    await drop();
  });

  it('is logged as a client abort at info, not as a failed request or a 500', async () => {
    const { port } = app.server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write(`POST ${BASE}/tokens HTTP/1.1\r\nhost: x\r\nauthorization: ${auth}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"name":"hal`);
        setTimeout(() => (s.destroy(), resolve()), 200);
      });
      s.on('error', reject);
    });
    const deadline = Date.now() + 5_000;
    while (!logs.some((l) => l.msg === 'client aborted the request') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const abort = logs.find((l) => l.msg === 'client aborted the request');
    expect(abort, JSON.stringify(logs)).toMatchObject({ level: 30, msg: 'client aborted the request' });
    expect(logs.filter((l) => (l.level as number) >= 50), 'no error-level lines').toEqual([]);
    expect(logs.filter((l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 500), 'no 500 logged').toEqual([]);
  });
});
