import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { activeFundedCard } from '../helpers/money.js';
import { businessCustomer, createBusiness, createOwner, ownerInput } from '../helpers/owners.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { recordReads, TOKEN_CONFIRMED, TOKEN_READ } from '../helpers/store-reads.js';
import { basicAuth, describeEachEngine, engineAvailable } from '../helpers/test-app.js';

/**
 * The owner list confirms its token in the statement that reads the page, so a token this process
 * has verified before is not read again (TokenService.authenticate, Principal.unconfirmed). These
 * tests hold that memory to the promise the Authentication section of
 * docs/configuration-and-security.md makes: a revoked token is refused at once, by every process,
 * whatever the answer would have been.
 */
describeEachEngine('remembered tokens on the owner list', (t) => {
  /** A fresh VIEW token, its list already answered once (so this process remembers it), and a revoke that bypasses this process. */
  async function rememberedToken(customerId: string) {
    const created = (await t.caller.req('POST', '/tokens', { name: 'remembered', permissions: ['VIEW'] })).json<{ id: string; clientId: string; clientSecret: string }>();
    const auth = basicAuth(created.clientId, created.clientSecret);
    const list = (query: string, authorization = auth) => t.app.inject({ method: 'GET', url: `/2025-10-13/beneficial-owners?${query}`, headers: { authorization } });
    expect((await list(`customerId=${customerId}`)).statusCode).toBe(200);
    // As another process would: straight in the database, so this process's memory is not told.
    const revokeElsewhere = () => t.services.store.db.updateTable('api_tokens').set({ revoked_at: Date.now() }).where('id', '=', created.id).execute();
    return { created, list, revokeElsewhere };
  }

  it('reads the token once, then confirms it inside the page statement', async () => {
    const customerId = await createBusiness(t.caller);
    await createOwner(t.caller, customerId);
    const { list } = await rememberedToken(customerId);
    // Count the statements that read a token to authenticate.
    const reads = recordReads(t.services.store);
    try {
      for (let i = 0; i < 3; i++) expect((await list(`customerId=${customerId}`)).statusCode).toBe(200);
      expect(reads.count(TOKEN_READ)).toBe(0);
      // Each list is one statement, which confirms the token as it reads (the page or its version).
      expect(reads.count(TOKEN_CONFIRMED)).toBe(3);
      // Another operation reads the token as before.
      expect((await t.caller.req('GET', '/tokens')).statusCode).toBe(200);
      expect(reads.count(TOKEN_READ)).toBe(1);
    } finally {
      reads.restore();
    }
  });

  it('answers 401 the moment the token is revoked elsewhere: page, bad customer, bad query and bad cursor alike', async () => {
    const customerId = await createBusiness(t.caller);
    await createOwner(t.caller, customerId);
    const { list, revokeElsewhere } = await rememberedToken(customerId);
    const individual = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    await revokeElsewhere();
    const queries = [`customerId=${customerId}`, `customerId=${customerId}&limit=0`, 'customerId=Customer:unknown', `customerId=${individual}`, `customerId=${customerId}&cursor=bogus`];
    for (const q of queries) {
      const res = await list(q);
      expect(res.statusCode, q).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).toMatch(/^Basic/);
    }
  });

  it('still needs the right secret for a remembered token', async () => {
    const customerId = await createBusiness(t.caller);
    const { created, list } = await rememberedToken(customerId);
    const res = await list(`customerId=${customerId}`, basicAuth(created.clientId, `${created.clientSecret}x`));
    expect(res.statusCode).toBe(401);
  });

  it('answers a remembered, live token exactly as before on its errors', async () => {
    const customerId = await createBusiness(t.caller);
    const { list } = await rememberedToken(customerId);
    const res = await list(`customerId=${customerId}&limit=0`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  });
});

describeEachEngine('remembered tokens on the authorization simulator', (t) => {
  it('accepts with one statement that confirms the token; revoked elsewhere, the next call is a 401 that writes nothing, Idempotency-Key replay included', async () => {
    const card = await activeFundedCard(t);
    const created = (await t.caller.req('POST', '/tokens', { name: 'simulating', permissions: ['TRANSACT'] })).json<{ id: string; clientId: string; clientSecret: string }>();
    const authorization = basicAuth(created.clientId, created.clientSecret);
    const authorize = (headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url: `/2025-10-13/sandbox/cards/${card.cardId}/simulate/authorization`, headers: { authorization, ...headers }, payload: { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'REMEMBERED' } } });
    expect((await authorize()).statusCode).toBe(202);
    expect((await authorize({ 'idempotency-key': 'remembered-1' })).statusCode).toBe(202);
    const reads = recordReads(t.services.store);
    try {
      expect((await authorize()).statusCode).toBe(202);
      expect(reads.count(TOKEN_READ)).toBe(0);
    } finally {
      reads.restore();
    }
    const transactions = () => t.services.store.db.selectFrom('card_transactions').select('id').where('card_id', '=', card.cardId).execute();
    const before = (await transactions()).length;
    await t.services.store.db.updateTable('api_tokens').set({ revoked_at: Date.now() }).where('id', '=', created.id).execute();
    for (const headers of [{}, { 'idempotency-key': 'remembered-1' }, { 'idempotency-key': 'remembered-2' }] as Record<string, string>[]) {
      const res = await authorize(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
    expect((await transactions()).length).toBe(before);
  });
});

describe.skipIf(!engineAvailable('postgres'))('a token revoked by one process, on PostgreSQL', () => {
  let db: TestDatabase | undefined;
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await db?.drop();
  });

  it('is refused at once by another process that had remembered it', { timeout: 60_000 }, async () => {
    db = await createTestDatabase('postgres');
    const env = { ...db.env, LOG_LEVEL: 'error', WORKER_ENABLED: '0' };
    const a = await startServerProcess(env);
    const b = await startServerProcess(env);
    servers.push(a, b);
    const call = (server: ServerProcess, method: string, path: string, auth: string, body?: unknown) =>
      body === undefined
        ? fetch(`${server.baseUrl}${path}`, { method, headers: { authorization: auth } })
        : fetch(`${server.baseUrl}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const customer = (await (await call(a, 'POST', '/customers', a.auth!, businessCustomer())).json()) as { id: string };
    expect((await call(a, 'POST', '/beneficial-owners', a.auth!, ownerInput(customer.id))).status).toBe(201);
    const token = (await (await call(a, 'POST', '/tokens', a.auth!, { name: 'short-lived', permissions: ['VIEW'] })).json()) as { id: string; clientId: string; clientSecret: string };
    const auth = basicAuth(token.clientId, token.clientSecret);
    const listOnB = () => call(b, 'GET', `/beneficial-owners?customerId=${customer.id}`, auth);
    for (let i = 0; i < 3; i++) expect((await listOnB()).status).toBe(200);
    expect((await call(a, 'DELETE', `/tokens/${token.id}`, a.auth!)).status).toBe(204);
    const refused = await listOnB();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});
