import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Migrator, type Kysely, type Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openServices } from '../../src/services.js';
import { insertCustomer, setKycStatus } from '../../src/store/customers-repo.js';
import { migrations } from '../../src/store/migrations/index.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { openStore } from '../../src/store/store.js';
import { drainCardJobs, provisionCards } from '../helpers/card-jobs.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { businessCustomer, ownerInput } from '../helpers/owners.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { BASE, basicAuth, describeEachEngine, engineAvailable, type Caller } from '../helpers/test-app.js';
import { produceEvent } from '../helpers/webhook-receiver.js';

const unknownId = (type: string) => `${type}:0190ffff-0000-7000-8000-00000000beef`;
const typeOf = (id: string) => id.slice(0, id.indexOf(':'));

interface Scope {
  caller: Caller;
  customer: string;
  owner: string;
  card: string;
  token: { id: string; clientId: string; clientSecret: string };
  event: string;
  account: string;
}

/** What one token of an environment made: a customer with an owner, a card, a token and a webhook event. */
async function populate(t: Parameters<Parameters<typeof describeEachEngine>[1]>[0], caller: Caller, label: string, platformCustomerId: string): Promise<Scope> {
  const ok = (res: LightMyRequestResponse, status = 201) => {
    expect(res.statusCode, `${label}: ${res.body}`).toBe(status);
    return res.json();
  };
  const customer = ok(await caller.req('POST', '/customers', { ...businessCustomer(), platformCustomerId })).id as string;
  const owner = ok(await caller.req('POST', '/beneficial-owners', ownerInput(customer))).id as string;
  const accounts = ok(await caller.req('GET', `/customers/internal-accounts?customerId=${customer}`), 200);
  expect(accounts.data, label).toHaveLength(1);
  const account = accounts.data[0].id as string;
  // Production has no KYC decision of its own here (no provider, no sandbox endpoint): approved as a provider would.
  await setKycStatus(t.services.store.db, caller.platformId, customer, 'APPROVED', Date.now());
  const card = ok(await caller.req('POST', '/cards', { cardholderId: customer, form: 'VIRTUAL', fundingSources: [account] })).id as string;
  await provisionCards(t.services, t.app.log);
  const token = ok(await caller.req('POST', '/tokens', { name: `${label} viewer`, permissions: ['VIEW'] }));
  const event = await produceEvent(t, caller);
  return { caller, customer, owner, card, token, event, account };
}

describeEachEngine('sandbox and production keep their data apart', (t) => {
  let sandbox: Scope;
  let production: Scope;
  let transaction: string;

  beforeAll(async () => {
    const sandboxCaller = await t.newCaller();
    const productionCaller = await t.newCaller('production', sandboxCaller);
    // One platform, two scopes: the same platformCustomerId is free in each.
    sandbox = await populate(t, sandboxCaller, 'sandbox', 'shared-ref');
    production = await populate(t, productionCaller, 'production', 'shared-ref');
    const authorized = await sandbox.caller.req('POST', `/sandbox/cards/${sandbox.card}/simulate/authorization`, { amount: 500, currency: { code: 'USD' }, merchant: { descriptor: 'SANDBOX SHOP' } });
    expect(authorized.statusCode, authorized.body).toBe(202);
    transaction = authorized.json().cardTransactionId;
    await drainCardJobs(t.services, t.app.log);
    // Endpoints set, so a redelivery gets as far as looking the event up.
    expect((await sandbox.caller.req('PATCH', '/config', { webhookEndpoint: 'https://sandbox.example.com/hooks', umaDomain: 'sandbox.example.com' })).statusCode).toBe(200);
    expect((await production.caller.req('PATCH', '/config', { webhookEndpoint: 'https://prod.example.com/hooks' })).statusCode).toBe(200);
  });

  it('gives a production token of a platform its own scope, and tokens it creates the same environment and scope', async () => {
    expect(production.caller.platformId).not.toBe(sandbox.caller.platformId);
    const prodTokens = (await production.caller.req('GET', '/tokens?limit=100')).json().data as { id: string; environment: string }[];
    expect(prodTokens.map((x) => x.id).sort()).toEqual([production.caller.tokenId, production.token.id].sort());
    expect(new Set(prodTokens.map((x) => x.environment))).toEqual(new Set(['production']));
    const sandboxTokens = (await sandbox.caller.req('GET', '/tokens?limit=100')).json().data as { id: string; environment: string }[];
    expect(sandboxTokens.map((x) => x.id).sort()).toEqual([sandbox.caller.tokenId, sandbox.token.id].sort());
    expect(new Set(sandboxTokens.map((x) => x.environment))).toEqual(new Set(['sandbox']));
    // The created VIEW token reads its creator's scope only.
    const viewer = (method: InjectOptions['method'], url: string) =>
      t.app.inject({ method, url: `${BASE}${url}`, headers: { authorization: basicAuth(production.token.clientId, production.token.clientSecret) } });
    expect((await viewer('GET', '/customers')).json().data.map((c: { id: string }) => c.id)).toEqual([production.customer]);
    expect((await viewer('GET', `/customers/${sandbox.customer}`)).statusCode).toBe(404);
  });

  it('lists only the scope\'s own rows', async () => {
    for (const [mine, theirs] of [
      [sandbox, production],
      [production, sandbox],
    ] as const) {
      const ids = async (url: string) => {
        const res = await mine.caller.req('GET', url);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
        return (res.json().data as { id: string }[]).map((x) => x.id);
      };
      expect(await ids('/customers?limit=100')).toEqual([mine.customer]);
      expect(await ids('/customers?platformCustomerId=shared-ref')).toEqual([mine.customer]);
      expect(await ids(`/beneficial-owners?customerId=${mine.customer}`)).toEqual([mine.owner]);
      expect(await ids('/cards?limit=100')).toEqual([mine.card]);
      expect(await ids(`/cards?cardholderId=${theirs.customer}`)).toEqual([]);
      expect(await ids('/customers/internal-accounts?limit=100')).toEqual([mine.account]);
      expect(await ids(`/customers/internal-accounts?customerId=${theirs.customer}`)).toEqual([]);
      expect(await ids('/webhook-events?limit=100')).toEqual(expect.arrayContaining([mine.event]));
      expect(await ids('/webhook-events?limit=100')).not.toContain(theirs.event);
      expect(await ids('/transactions?limit=100')).toEqual(mine === sandbox ? [transaction] : []);
      expect(await ids(`/transactions?customerId=${theirs.customer}`)).toEqual([]);
    }
  });

  it('answers the other environment\'s ids exactly as unknown ids, for reads and changes', async () => {
    /** The same status and body as for an unknown id of the same type (the id itself aside). */
    const sameAsUnknown = async (caller: Caller, method: InjectOptions['method'], path: (id: string) => string, foreignId: string, body?: (id: string) => unknown) => {
      const unknown = unknownId(typeOf(foreignId));
      const foreign = await caller.req(method, path(foreignId), body?.(foreignId));
      const control = await caller.req(method, path(unknown), body?.(unknown));
      const label = `${method} ${path(foreignId)}`;
      expect(foreign.statusCode, `${label}: ${foreign.body}`).toBeGreaterThanOrEqual(400);
      expectErrorObject(foreign, label);
      expect(foreign.statusCode, label).toBe(control.statusCode);
      expect(foreign.body.replaceAll(foreignId, '<id>'), label).toBe(control.body.replaceAll(unknown, '<id>'));
    };
    for (const [mine, theirs] of [
      [sandbox, production],
      [production, sandbox],
    ] as const) {
      const c = mine.caller;
      await sameAsUnknown(c, 'GET', (id) => `/customers/${id}`, theirs.customer);
      await sameAsUnknown(c, 'PATCH', (id) => `/customers/${id}`, theirs.customer, () => ({ email: 'x@example.com' }));
      await sameAsUnknown(c, 'DELETE', (id) => `/customers/${id}`, theirs.customer);
      await sameAsUnknown(c, 'GET', (id) => `/beneficial-owners/${id}`, theirs.owner);
      await sameAsUnknown(c, 'PATCH', (id) => `/beneficial-owners/${id}`, theirs.owner, () => ({ ownershipPercentage: 10 }));
      await sameAsUnknown(c, 'POST', () => '/beneficial-owners', theirs.customer, (id) => ownerInput(id));
      await sameAsUnknown(c, 'GET', (id) => `/beneficial-owners?customerId=${id}`, theirs.customer);
      await sameAsUnknown(c, 'GET', (id) => `/cards/${id}`, theirs.card);
      await sameAsUnknown(c, 'POST', () => '/cards', theirs.customer, (id) => ({ cardholderId: id, form: 'VIRTUAL', fundingSources: [mine.account] }));
      await sameAsUnknown(c, 'POST', () => '/cards', theirs.account, (id) => ({ cardholderId: mine.customer, form: 'VIRTUAL', fundingSources: [id] }));
      await sameAsUnknown(c, 'PATCH', (id) => `/cards/${id}`, theirs.card, () => ({ state: 'FROZEN' }));
      await sameAsUnknown(c, 'PATCH', (id) => `/cards/${id}`, theirs.card, () => ({ fundingSources: [mine.account] }));
      await sameAsUnknown(c, 'GET', (id) => `/tokens/${id}`, theirs.token.id);
      await sameAsUnknown(c, 'DELETE', (id) => `/tokens/${id}`, theirs.token.id);
      await sameAsUnknown(c, 'DELETE', (id) => `/tokens/${id}`, theirs.caller.tokenId);
      await sameAsUnknown(c, 'GET', (id) => `/webhook-events/${id}`, theirs.event);
      await sameAsUnknown(c, 'POST', (id) => `/webhook-events/${id}/redeliver`, theirs.event);
      await sameAsUnknown(c, 'GET', (id) => `/transactions?cardId=${id}`, theirs.card);
    }
    await sameAsUnknown(production.caller, 'GET', (id) => `/transactions/${id}`, transaction);
    await sameAsUnknown(sandbox.caller, 'POST', (id) => `/sandbox/cards/${id}/simulate/authorization`, production.card, () => ({ amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'X' } }));
    await sameAsUnknown(sandbox.caller, 'POST', (id) => `/sandbox/internal-accounts/${id}/fund`, production.account, () => ({ amount: 1 }));
    await sameAsUnknown(sandbox.caller, 'POST', (id) => `/sandbox/customers/${id}/kyc`, production.customer, () => ({ status: 'APPROVED' }));
    // Nothing the refused requests named was changed: both scopes' rows and tokens are intact.
    for (const s of [sandbox, production]) {
      const customer = (await s.caller.req('GET', `/customers/${s.customer}`)).json();
      expect(customer).toMatchObject({ id: s.customer, isDeleted: false, email: 'finance@acme.example' });
      expect((await s.caller.req('GET', `/beneficial-owners/${s.owner}`)).json().ownershipPercentage).toBe(25);
      expect((await s.caller.req('GET', `/tokens/${s.token.id}`)).statusCode).toBe(200);
    }
  });

  it('meets the sandbox paths as unknown paths with a production token, even on its own card and account', async () => {
    const unknownPath = await production.caller.req('POST', '/sandbox/nothing-here', {});
    for (const url of [`/sandbox/cards/${production.card}/simulate/authorization`, `/sandbox/internal-accounts/${production.account}/fund`, `/sandbox/customers/${production.customer}/kyc`, '/sandbox/webhooks/test']) {
      const res = await production.caller.req('POST', url, { amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'X' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ ...unknownPath.json(), message: `No operation POST ${BASE}${url}` });
    }
  });

  it('keeps a configuration, webhook endpoint and signing keys per environment (set in beforeAll)', async () => {
    const s = (await sandbox.caller.req('GET', '/config')).json();
    const p = (await production.caller.req('GET', '/config')).json();
    expect(s).toMatchObject({ webhookEndpoint: 'https://sandbox.example.com/hooks', umaDomain: 'sandbox.example.com' });
    expect(p.webhookEndpoint).toBe('https://prod.example.com/hooks');
    expect(p).not.toHaveProperty('umaDomain');
    expect(p.id).not.toBe(s.id);
    expect(p.webhookSecret).toMatch(/^whsec_/);
    expect(p.webhookSecret).not.toBe(s.webhookSecret);
    expect(p.webhookPublicKey).not.toBe(s.webhookPublicKey);
    // A rotation in one environment leaves the other's secret alone.
    const rotated = (await production.caller.req('POST', '/config/webhook-secret/rotate')).json();
    expect(rotated.webhookSecret).not.toBe(p.webhookSecret);
    expect((await sandbox.caller.req('GET', '/config')).json().webhookSecret).toBe(s.webhookSecret);
  });

  it('revokes only within the scope: the other environment\'s token keeps working', async () => {
    const extra = (await sandbox.caller.req('POST', '/tokens', { name: 'sandbox extra', permissions: ['VIEW'] })).json();
    expect((await production.caller.req('DELETE', `/tokens/${extra.id}`)).statusCode).toBe(404);
    const asExtra = await t.app.inject({ method: 'GET', url: `${BASE}/tokens/${extra.id}`, headers: { authorization: basicAuth(extra.clientId, extra.clientSecret) } });
    expect(asExtra.statusCode).toBe(200);
    expect((await sandbox.caller.req('DELETE', `/tokens/${extra.id}`)).statusCode).toBe(204);
    const after = await t.app.inject({ method: 'GET', url: `${BASE}/tokens`, headers: { authorization: basicAuth(extra.clientId, extra.clientSecret) } });
    expect(after.statusCode).toBe(401);
  });

  it('shows the webhook signing secret to MANAGE tokens only; VIEW and TRANSACT see the rest', async () => {
    for (const s of [sandbox, production]) {
      const full = (await s.caller.req('GET', '/config')).json();
      expect(full.webhookSecret).toMatch(/^whsec_/);
      for (const permission of ['VIEW', 'TRANSACT', 'MANAGE'] as const) {
        const token = (await s.caller.req('POST', '/tokens', { name: `config ${permission}`, permissions: [permission] })).json();
        const res = await t.app.inject({ method: 'GET', url: `${BASE}/config`, headers: { authorization: basicAuth(token.clientId, token.clientSecret) } });
        expect(res.statusCode, permission).toBe(200);
        const { webhookSecret, ...rest } = full;
        if (permission === 'MANAGE') expect(res.json(), permission).toEqual(full);
        else {
          expect(res.json(), permission).toEqual(rest);
          expect(res.body, permission).not.toContain(webhookSecret);
        }
      }
    }
  });
});

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`environments from the command line and across the upgrade [${engine}]`, () => {
    const databases: TestDatabase[] = [];
    afterAll(async () => {
      for (const db of databases) await db.drop();
    });

    it('the CLI creates a production token in the platform\'s production scope, one scope per platform', { timeout: 120_000 }, async () => {
      const db = await createTestDatabase(engine);
      databases.push(db);
      const cli = async (...args: string[]) =>
        JSON.parse((await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'tokens', 'create', '--json', ...args], { cwd: ROOT, env: { ...process.env, ...db.env } })).stdout) as {
          id: string;
          platformId: string;
          environment: string;
        };
      const sandbox = await cli();
      const production = await cli('--env', 'production', '--platform', sandbox.platformId);
      expect(production.environment).toBe('production');
      expect(production.platformId).not.toBe(sandbox.platformId);
      // Named by either of its scopes, or by default the first platform: the same two scopes.
      expect((await cli('--env', 'production', '--platform', production.platformId)).platformId).toBe(production.platformId);
      expect((await cli('--env', 'production')).platformId).toBe(production.platformId);
      expect((await cli('--env', 'sandbox', '--platform', production.platformId)).platformId).toBe(sandbox.platformId);
      await expect(
        run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'tokens', 'create', '--platform', 'Platform:nope'], { cwd: ROOT, env: { ...process.env, ...db.env } }),
      ).rejects.toMatchObject({ code: 1 });

      const store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      try {
        const platforms = await store.db.selectFrom('platforms').select(['id', 'sandbox_platform_id']).orderBy('created_at').orderBy('id').execute();
        expect(platforms.map((p) => ({ ...p, sandbox_platform_id: p.sandbox_platform_id ?? null }))).toEqual([
          { id: sandbox.platformId, sandbox_platform_id: null },
          { id: production.platformId, sandbox_platform_id: sandbox.platformId },
        ]);
        const tokens = await store.db.selectFrom('api_tokens').select(['id', 'platform_id', 'environment']).where('id', 'in', [sandbox.id, production.id]).execute();
        expect(tokens.sort((a, b) => a.environment.localeCompare(b.environment))).toEqual([
          { id: production.id, platform_id: production.platformId, environment: 'production' },
          { id: sandbox.id, platform_id: sandbox.platformId, environment: 'sandbox' },
        ]);
      } finally {
        await store.close();
      }
    });

    it('migration 011 moves existing production tokens to their platform\'s production scope; their earlier data stays in the sandbox', { timeout: 60_000 }, async () => {
      const db = await createTestDatabase(engine);
      databases.push(db);
      const store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      const secret = 'old-production-secret';
      const token = (id: string, environment: string, revokedAt: number | null = null) => ({
        id,
        platform_id: 'Platform:old',
        name: `${environment} token`,
        permissions: JSON.stringify(['VIEW', 'TRANSACT', 'MANAGE']),
        environment,
        secret_hash: createHash('sha256').update(secret).digest('hex'),
        created_at: 1000,
        updated_at: 1000,
        revoked_at: revokedAt,
        list_position: 1000,
      });
      const sandboxToken = 'Token:01900000-0000-7000-8000-000000000001';
      const productionToken = 'Token:01900000-0000-7000-8000-000000000002';
      const revokedProduction = 'Token:01900000-0000-7000-8000-000000000003';
      const customer = 'Customer:01900000-0000-7000-8000-0000000000c1';
      try {
        const provider = {
          async getMigrations(): Promise<Record<string, Migration>> {
            return Object.fromEntries(Object.entries(migrations).map(([name, make]) => [name, make(store.engine)]));
          },
        };
        const raw = store.db as unknown as Kysely<any>;
        expect((await new Migrator({ db: raw, provider }).migrateTo('010_internal_accounts')).error).toBeUndefined();
        await raw.insertInto('platforms').values({ id: 'Platform:old', name: 'Old platform', created_at: 1, list_clock: 5000 }).execute();
        await raw.insertInto('api_tokens').values([token(sandboxToken, 'sandbox'), token(productionToken, 'production'), token(revokedProduction, 'production', 2000)]).execute();
        // Made by the production token before the upgrade, when it shared the platform's data.
        await store.transaction((uow) => insertCustomer(uow, {
          id: customer,
          platform_id: 'Platform:old',
          customer_type: 'BUSINESS',
          platform_customer_id: 'made-in-production',
          kyc_status: 'UNVERIFIED',
          data: '{}',
          owner_count: 0,
          uma_address: '$old@test.invalid',
          is_deleted: 0,
          region: null,
          currency_list: '',
          created_at: 3000,
          updated_at: 3000,
        }));
        await migrateToLatest(store);

        const scopes = await raw.selectFrom('platforms').select(['id', 'sandbox_platform_id', 'list_clock']).where('sandbox_platform_id', '=', 'Platform:old').execute();
        expect(scopes).toHaveLength(1);
        const scope = scopes[0]!.id as string;
        expect(scope).toMatch(/^Platform:[0-9a-f-]{36}$/);
        expect(Number(scopes[0]!.list_clock)).toBeGreaterThanOrEqual(5000);
        const tokens = await raw.selectFrom('api_tokens').select(['id', 'platform_id']).orderBy('id').execute();
        expect(tokens).toEqual([
          { id: sandboxToken, platform_id: 'Platform:old' },
          { id: productionToken, platform_id: scope },
          { id: revokedProduction, platform_id: scope },
        ]);
        expect((await raw.selectFrom('customers').select('platform_id').where('id', '=', customer).executeTakeFirstOrThrow()).platform_id).toBe('Platform:old');
      } finally {
        await store.close();
      }

      // The upgraded server: the production token reaches its own scope only, the sandbox token the old data.
      const services = await openServices(loadConfig({ ...db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent' }));
      const app = await buildApp(services);
      try {
        const as = (tokenId: string, url: string) => app.inject({ method: 'GET', url: `${BASE}${url}`, headers: { authorization: basicAuth(tokenId, secret) } });
        expect((await as(productionToken, '/customers')).json().data).toEqual([]);
        expect((await as(productionToken, `/customers/${customer}`)).statusCode).toBe(404);
        expect((await as(productionToken, '/tokens')).json().data.map((x: { id: string }) => x.id)).toEqual([productionToken]);
        expect((await as(sandboxToken, '/customers')).json().data.map((x: { id: string }) => x.id)).toEqual([customer]);
        expect((await as(sandboxToken, '/tokens')).json().data.map((x: { id: string }) => x.id)).toEqual([sandboxToken]);
        expect((await as(revokedProduction, '/tokens')).statusCode).toBe(401);
      } finally {
        await app.close();
        await services.store.close();
      }
    });
  });
}
