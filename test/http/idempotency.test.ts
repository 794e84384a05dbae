import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { IdempotencyKeys, keySlot, seal } from '../../src/http/idempotency-keys.js';
import { lockIdempotencyKey } from '../../src/store/idempotency-keys-repo.js';
import { SQLITE_FILE } from '../../src/store/sqlite.js';
import { openStore } from '../../src/store/store.js';
import { drainCardJobs } from '../helpers/card-jobs.js';
import type { TestDatabase } from '../helpers/engines.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { activeCard, approvedCardholder, injectCall, insertTestCustomer } from '../helpers/fixtures.js';
import { businessCustomer, ownerInput } from '../helpers/owners.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

const REPLAYED = 'idempotent-replayed';
let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;
const key = (k: string) => ({ 'idempotency-key': k });

function expectError(res: LightMyRequestResponse, status: number, code: string): void {
  const body = expectErrorObject(res, `${status} ${code}`);
  expect({ status: res.statusCode, code: body.code }, res.body).toEqual({ status, code });
}

describeEachEngine('Idempotency-Key', (t) => {
  // No platformCustomerId (it is unique per platform): the same body twice is two customers unless a key says otherwise.
  const customerInput = () => {
    const { platformCustomerId: _, businessInfo, ...rest } = businessCustomer();
    return { ...rest, businessInfo: { ...businessInfo, legalName: `Acme ${Math.random().toString(36).slice(2, 10)} LLC` } };
  };
  const countCustomers = async (caller: Caller, legalName: string) =>
    (await caller.req('GET', '/customers?limit=100')).json<{ data: { businessInfo?: { legalName?: string } }[] }>().data.filter((c) => c.businessInfo?.legalName === legalName).length;

  /** Sends the request twice with one key: the second answer is the first, marked as a replay. */
  async function sendTwice(caller: Caller, method: 'POST' | 'PATCH', url: string, body?: unknown): Promise<LightMyRequestResponse> {
    const k = newKey();
    const first = await caller.req(method, url, body, key(k));
    const again = await caller.req(method, url, body, key(k));
    expect(first.headers[REPLAYED]).toBeUndefined();
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.statusCode).toBe(first.statusCode);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    return first;
  }

  it('replays a created customer and creates it once', async () => {
    const caller = await t.newCaller();
    const input = customerInput();
    const first = await sendTwice(caller, 'POST', '/customers', input);
    expect(first.statusCode, first.body).toBe(201);
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(1);
    // Without the header nothing changes: a second request is a second customer.
    expect((await caller.req('POST', '/customers', input)).statusCode).toBe(201);
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(2);
  });

  it('answers a keyed request that fails validation with its reference checks too, without waiting on its own held transaction', async () => {
    const caller = await t.newCaller();
    const body = { cardholderId: 'Customer:019542f5-b3e7-7d02-8000-00000000dead', form: 'PLASTIC' };
    // The error handler's reference check runs in the request's held transaction: on SQLite's one
    // write connection it used to wait for that transaction, which waited for the answer.
    const res = await Promise.race([
      caller.req('POST', '/cards', body, key(newKey())),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5_000)),
    ]);
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['cardholderId', 'form', 'fundingSources']);
    // The connection is free: the next write goes through.
    expect((await caller.req('POST', '/customers', customerInput(), key(newKey()))).statusCode).toBe(201);
  });

  it('replays a created token (its secret included) and creates it once', async () => {
    const caller = await t.newCaller();
    const first = await sendTwice(caller, 'POST', '/tokens', { name: 'idempotent token', permissions: ['VIEW'] });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toHaveProperty('clientSecret');
    expect((await caller.req('GET', '/tokens?name=idempotent%20token')).json().totalCount).toBe(1);
  });

  it("keeps neither the key nor the answer readable in the database: a created token's secret is sealed", async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const created = await caller.req('POST', '/tokens', { name: 'sealed', permissions: ['VIEW'] }, key(k));
    const secret = created.json<{ clientSecret: string }>().clientSecret;
    const rows = await t.services.store.db.selectFrom('idempotency_keys').selectAll().where('token_id', '=', caller.tokenId).execute();
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(k);
    expect(rows[0]!.body).not.toContain('clientId');
    // The replay still carries the secret: the client that lost the answer gets it back.
    expect((await caller.req('POST', '/tokens', { name: 'sealed', permissions: ['VIEW'] }, key(k))).body).toBe(created.body);
  });

  it('replays a created beneficial owner and counts it once', async () => {
    const caller = await t.newCaller();
    const customerId = (await caller.req('POST', '/customers', businessCustomer())).json<{ id: string }>().id;
    const first = await sendTwice(caller, 'POST', '/beneficial-owners', ownerInput(customerId));
    expect(first.statusCode, first.body).toBe(201);
    expect((await caller.req('GET', `/beneficial-owners?customerId=${customerId}`)).json().totalCount).toBe(1);
  });

  it('replays an issued card and issues it once', async () => {
    const caller = await t.newCaller();
    const holder = await insertTestCustomer(t, caller);
    const accountId = await approvedCardholder(injectCall(caller), holder);
    const first = await sendTwice(caller, 'POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [accountId] });
    expect(first.statusCode, first.body).toBe(201);
    expect((await caller.req('GET', `/cards?cardholderId=${holder}`)).json().totalCount).toBe(1);
  });

  it('replays a card change (a freeze) and makes it once: one CARD.STATE_CHANGE', async () => {
    const caller = await t.newCaller();
    const card = await activeCard(t, caller);
    const first = await sendTwice(caller, 'PATCH', `/cards/${card.id}`, { state: 'FROZEN' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ id: card.id, state: 'FROZEN' });
    const events = await t.services.store.db.selectFrom('webhook_events').select('body').where('platform_id', '=', caller.platformId).where('type', '=', 'CARD.STATE_CHANGE').execute();
    expect(events.map((e) => JSON.parse(e.body).data.state).sort()).toEqual(['ACTIVE', 'FROZEN']);
    // Without the key the same change is a second request, refused: the card is FROZEN already.
    expectError(await caller.req('PATCH', `/cards/${card.id}`, { state: 'FROZEN' }), 409, 'INVALID_STATE_TRANSITION');
  });

  it('replays a simulated authorization and authorizes once', async () => {
    const caller = await t.newCaller();
    const cardId = (await activeCard(t, caller)).id as string;
    const body = { amount: 1200, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } };
    const first = await sendTwice(caller, 'POST', `/sandbox/cards/${cardId}/simulate/authorization`, body);
    expect(first.statusCode, first.body).toBe(202);
    await drainCardJobs(t.services, t.app.log);
    const txns = (await caller.req('GET', `/transactions?cardId=${cardId}`)).json<{ data: { id: string }[]; totalCount: number }>();
    expect(txns.totalCount).toBe(1);
    expect(txns.data[0]!.id).toBe(first.json().cardTransactionId);
  });

  it('replays PATCH /config without applying it again', async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const first = await caller.req('PATCH', '/config', { umaDomain: 'first.example.com' }, key(k));
    expect(first.statusCode, first.body).toBe(200);
    expect((await caller.req('PATCH', '/config', { umaDomain: 'second.example.com' })).statusCode).toBe(200);
    const again = await caller.req('PATCH', '/config', { umaDomain: 'first.example.com' }, key(k));
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.body).toBe(first.body);
    expect((await caller.req('GET', '/config')).json().umaDomain).toBe('second.example.com');
  });

  it('refuses the key with another body, path or method: 400 on Idempotency-Key, and does nothing', async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const input = customerInput();
    expect((await caller.req('POST', '/customers', input, key(k))).statusCode).toBe(201);
    const other = customerInput();
    const refusals = [
      await caller.req('POST', '/customers', other, key(k)),
      await caller.req('POST', '/customers?x=1', input, key(k)),
      await caller.req('POST', '/tokens', { name: 'x', permissions: ['VIEW'] }, key(k)),
      await caller.req('PATCH', '/config', {}, key(k)),
    ];
    for (const res of refusals) {
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.json().details.errors).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('another request') }]);
      expect(res.json().message).toContain('another request');
    }
    expect(await countCustomers(caller, other.businessInfo.legalName)).toBe(0);
    expect((await caller.req('GET', '/tokens?name=x')).json().totalCount).toBe(0);
  });

  it('scopes keys to the token: another token with the same key does its own work', async () => {
    const a = await t.newCaller();
    const created = await a.req('POST', '/tokens', { name: 'second token of a', permissions: ['TRANSACT'] });
    const b = { ...a, req: (m: 'POST', url: string, body?: unknown, headers?: Record<string, string>) => t.app.inject({ method: m, url: `/2025-10-13${url}`, headers: { authorization: `Basic ${Buffer.from(`${created.json().clientId}:${created.json().clientSecret}`).toString('base64')}`, ...headers }, payload: body as object }) };
    const k = newKey();
    const input = customerInput();
    const first = await a.req('POST', '/customers', input, key(k));
    const second = await b.req('POST', '/customers', input, key(k));
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers[REPLAYED]).toBeUndefined();
    expect(second.json().id).not.toBe(first.json().id);
    expect(await countCustomers(a, input.businessInfo.legalName)).toBe(2);
  });

  it('runs concurrent requests with one key once: the others get 409 CONFLICT or the replay', async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const input = customerInput();
    // The work takes a while, so the requests overlap whatever the engine's speed.
    const service = t.services.customers;
    const create = service.create;
    service.create = async (...args) => {
      await new Promise((r) => setTimeout(r, 150));
      return create.apply(service, args);
    };
    let answers: LightMyRequestResponse[];
    try {
      answers = await Promise.all(Array.from({ length: 6 }, () => caller.req('POST', '/customers', input, key(k))));
    } finally {
      service.create = create;
    }
    const executed = answers.filter((r) => r.statusCode === 201 && r.headers[REPLAYED] === undefined);
    expect(executed).toHaveLength(1);
    for (const r of answers.filter((a) => a !== executed[0])) {
      if (r.statusCode === 409) expectError(r, 409, 'CONFLICT');
      else expect({ status: r.statusCode, replayed: r.headers[REPLAYED], body: r.body }).toEqual({ status: 201, replayed: 'true', body: executed[0]!.body });
    }
    expect(answers.some((r) => r.statusCode === 409)).toBe(true);
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(1);
    // Once it has answered, the key replays.
    expect((await caller.req('POST', '/customers', input, key(k))).headers[REPLAYED]).toBe('true');
  });

  it('meets a key another process holds: 409 on PostgreSQL (advisory lock), the replay once it commits on SQLite (the writer lock)', async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const input = customerInput();
    const stored = { status: 201, content_type: 'application/json; charset=utf-8', body: '{"stored":true}' };
    const slot = keySlot(caller.tokenId, k);
    const row = {
      token_id: caller.tokenId,
      key_sha256: slot.keySha256,
      method: 'POST',
      path: '/2025-10-13/customers',
      body_sha256: createHash('sha256').update(JSON.stringify(input)).digest('hex'),
      ...stored,
      body: seal(slot.sealKey, stored.body),
      created_at: Date.now(),
      expires_at: Date.now() + 60_000,
    };
    const holder = await holdKeyElsewhere(t.db, row);
    try {
      const res = await caller.req('POST', '/customers', input, key(k));
      if (t.engine === 'postgres') expectError(res, 409, 'CONFLICT');
      else expect({ status: res.statusCode, replayed: res.headers[REPLAYED], body: res.body }).toEqual({ status: 201, replayed: 'true', body: stored.body });
    } finally {
      await holder.release();
    }
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(0);
    // Once the other process has committed, both engines replay what it stored.
    const later = await caller.req('POST', '/customers', input, key(k));
    expect({ status: later.statusCode, replayed: later.headers[REPLAYED], body: later.body }).toEqual({ status: 201, replayed: 'true', body: stored.body });
  });

  it("replays the handler's refusals and failed validation (4xx) without their writes", async () => {
    const caller = await t.newCaller();
    const individual = await insertTestCustomer(t, caller, 'INDIVIDUAL');
    const refused = await sendTwice(caller, 'POST', '/beneficial-owners', ownerInput(individual));
    expect(refused.statusCode).toBe(400);
    const invalid = await sendTwice(caller, 'POST', '/cards', { form: 'PHYSICAL' });
    expectError(invalid, 400, 'INVALID_INPUT');
    const missing = await sendTwice(caller, 'POST', '/webhook-events/WebhookEvent:0190ffff-0000-7000-8000-000000000000/redeliver');
    expectError(missing, 404, 'REFERENCE_NOT_FOUND');
  });

  it('rolls back and keeps nothing on a 5xx, so a retry with the key runs', async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const input = customerInput();
    const service = t.services.customers;
    const create = service.create;
    // The work is done, then the process fails before answering.
    service.create = async (...args) => {
      await create.apply(service, args);
      throw new Error('failure after the work');
    };
    let failed: LightMyRequestResponse;
    try {
      failed = await caller.req('POST', '/customers', input, key(k));
    } finally {
      service.create = create;
    }
    expectError(failed, 500, 'INTERNAL_ERROR');
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(0);
    const retried = await caller.req('POST', '/customers', input, key(k));
    expect(retried.statusCode).toBe(201);
    expect(retried.headers[REPLAYED]).toBeUndefined();
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(1);
  });

  it('keeps nothing for answers given before the operation runs (415, 401, 403)', async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const input = customerInput();
    expectError(await caller.req('POST', '/customers', 'x', { ...key(k), 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await caller.req('POST', '/customers', input, { ...key(k), authorization: 'Basic eDp5' }), 401, 'UNAUTHORIZED');
    const viewer = (await caller.req('POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] })).json();
    const asViewer = { ...key(k), authorization: `Basic ${Buffer.from(`${viewer.clientId}:${viewer.clientSecret}`).toString('base64')}` };
    expectError(await caller.req('POST', '/customers', input, asViewer), 403, 'FORBIDDEN');
    const res = await caller.req('POST', '/customers', input, key(k));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers[REPLAYED]).toBeUndefined();
  });

  it('does not replay an expired record: the request runs again', async () => {
    const caller = await t.newCaller();
    const k = newKey();
    const input = customerInput();
    expect((await caller.req('POST', '/customers', input, key(k))).statusCode).toBe(201);
    const row = () => t.services.store.db.selectFrom('idempotency_keys').selectAll().where('token_id', '=', caller.tokenId).where('key_sha256', '=', keySlot(caller.tokenId, k).keySha256).executeTakeFirstOrThrow();
    const kept = await row();
    expect(kept.expires_at - kept.created_at).toBe(24 * 60 * 60 * 1000);
    await t.services.store.db.updateTable('idempotency_keys').set({ expires_at: Date.now() - 1 }).where('token_id', '=', caller.tokenId).where('key_sha256', '=', keySlot(caller.tokenId, k).keySha256).execute();
    const again = await caller.req('POST', '/customers', input, key(k));
    expect(again.statusCode).toBe(201);
    expect(again.headers[REPLAYED]).toBeUndefined();
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(2);
    expect((await row()).expires_at).toBeGreaterThan(Date.now());
  });

  it('prunes expired records', async () => {
    const caller = await t.newCaller();
    const old = { token_id: caller.tokenId, method: 'POST', path: '/x', body_sha256: 'x', status: 201, content_type: null, body: null, created_at: 0, expires_at: 1 };
    await t.services.store.db.insertInto('idempotency_keys').values([{ ...old, key_sha256: 'old-1' }, { ...old, key_sha256: 'old-2' }]).execute();
    // A fresh instance prunes at its first stored answer (the app's may have pruned already this minute).
    const fresh = new IdempotencyKeys(t.services.store);
    const claim = await fresh.claim(caller.tokenId, newKey(), { method: 'POST', path: '/y', bodySha256: 'y' });
    expect(claim.outcome).toBe('started');
    if (claim.outcome === 'started') await claim.attempt.finish({ status: 200, contentType: null, body: null });
    const left = await t.services.store.db.selectFrom('idempotency_keys').select('key_sha256').where('token_id', '=', caller.tokenId).execute();
    expect(left.map((r) => r.key_sha256).filter((k) => k.startsWith('old-'))).toEqual([]);
    expect(left).toHaveLength(1);
  });

  it('refuses a key that is empty, longer than 255 or not printable ASCII: 400 on Idempotency-Key, nothing done', async () => {
    const caller = await t.newCaller();
    const input = customerInput();
    for (const bad of ['', 'k'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await caller.req('POST', '/customers', input, key(bad));
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.json().details.errors).toEqual([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    expect(await countCustomers(caller, input.businessInfo.legalName)).toBe(0);
    const longest = await caller.req('POST', '/customers', input, key(`${'k'.repeat(250)} ~!@#`));
    expect(longest.statusCode, longest.body).toBe(201);
  });
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Another process in the middle of a request with the key: it holds the key's lock and has written
 * the answer, not yet committed. PostgreSQL: another connection (a separate pool) suffices.
 * SQLite: a real child process, since better-sqlite3 connections of one process cannot wait on
 * each other; it commits 400 ms after taking the writer lock.
 */
async function holdKeyElsewhere(db: TestDatabase, row: Record<string, string | number>): Promise<{ release(): Promise<void> }> {
  if (db.engine === 'postgres') {
    const other = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
    const held = await other.begin();
    expect(await lockIdempotencyKey(held, String(row.token_id), String(row.key_sha256))).toBe(true);
    await held.db.insertInto('idempotency_keys').values(row as never).execute();
    return {
      release: async () => {
        await held.commit();
        await other.close();
      },
    };
  }
  const script = `
    import Database from 'better-sqlite3';
    const row = JSON.parse(process.argv[2]);
    const db = new Database(process.argv[1]);
    db.exec('begin immediate');
    db.prepare('insert into idempotency_keys (' + Object.keys(row).join(',') + ') values (' + Object.keys(row).map(() => '?').join(',') + ')').run(...Object.values(row));
    process.stdout.write('held\\n');
    setTimeout(() => { db.exec('commit'); db.close(); }, 400);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, join(db.dataDir, SQLITE_FILE), JSON.stringify(row)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    child.once('exit', (code) => reject(new Error(`the holding process exited (${code}) before holding the key`)));
  });
  return { release: async () => void (await exited) };
}
