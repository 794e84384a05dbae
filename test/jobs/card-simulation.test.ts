import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CARD_SIMULATION_JOB } from '../../src/domain/cards/card-simulations.js';
import { openServices, type Services } from '../../src/services.js';
import { cardSimulationHandler } from '../../src/jobs/card-simulation.js';
import { Worker } from '../../src/jobs/worker.js';
import { claimDueJobs } from '../../src/store/jobs-repo.js';
import { accountOf } from '../../src/domain/accounts/internal-accounts.js';
import type { Store } from '../../src/store/store.js';
import { drainCardJobs, provisionCards } from '../helpers/card-jobs.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { activeCard, fetchCall, insertTestCustomer, issueCard } from '../helpers/fixtures.js';
import { activeFundedCard, fundCustomer, fundCustomerAt } from '../helpers/money.js';
import { startServerProcess } from '../helpers/server-process.js';
import { describeEachEngine, engineAvailable } from '../helpers/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MERCHANT = { descriptor: 'SANDBOX STORE' };

async function opCounts(db: Store['db'], txnIds: string[]) {
  const ops = await db.selectFrom('card_operations').select(['status', 'issuer_transaction_token']).where('card_transaction_id', 'in', txnIds).execute();
  const events = await db.selectFrom('webhook_events').select('body').where('type', 'like', 'CARD_TRANSACTION.%').execute();
  const tokens = events.map((e) => (JSON.parse(e.body) as { operation: { issuerTransactionToken: string } }).operation.issuerTransactionToken);
  return {
    landed: ops.filter((o) => o.status === 'LANDED').length,
    pending: ops.filter((o) => o.status === 'PENDING').length,
    rejected: ops.filter((o) => o.status === 'REJECTED').length,
    eventTokens: tokens,
  };
}

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`card simulations survive a crash [${engine}]`, () => {
    let tdb: TestDatabase;
    let store: Store;
    beforeAll(async () => {
      tdb = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await store?.close();
      // drop() waits for the pool's connections to finish closing before it drops the database.
      await tdb?.drop();
    });

    it('a server killed with SIGKILL before processing leaves its accepted operations; a restarted one lands each exactly once', async () => {
      const first = await startServerProcess({ ...tdb.env, WORKER_ENABLED: '0' });
      const id = /Client id:\s+(\S+)/.exec(first.output())![1]!;
      const secret = /Client secret:\s+(\S+)/.exec(first.output())![1]!;
      const auth = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
      const call = async (base: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as Record<string, any> };
      };
      const services = await openServices(loadConfig({ ...tdb.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent' }));
      store = services.store;
      const { platform_id } = await store.db.selectFrom('api_tokens').select('platform_id').executeTakeFirstOrThrow();
      const holder = await insertTestCustomer({ services: { store } } as never, { platformId: platform_id } as never);
      await fundCustomerAt(first.baseUrl, auth, holder);
      const card = await issueCard(fetchCall(first.baseUrl, auth), holder);
      await provisionCards(services);

      const txnIds: string[] = [];
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) {
        const auth202 = await call(first.baseUrl, 'POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 1000, currency: { code: 'USD' }, merchant: MERCHANT });
        expect(auth202.status).toBe(202);
        txnIds.push(auth202.body.cardTransactionId);
        tokens.push(auth202.body.issuerTransactionToken);
        for (const amount of [300, 700]) {
          const r = await call(first.baseUrl, 'POST', `/sandbox/cards/${card.id}/simulate/clearing`, { cardTransactionId: auth202.body.cardTransactionId, amount });
          expect(r.status).toBe(202);
          tokens.push(r.body.issuerTransactionToken);
        }
      }
      await first.kill('SIGKILL');
      expect(await opCounts(store.db, txnIds)).toMatchObject({ landed: 0, pending: 15 });

      const second = await startServerProcess({ ...tdb.env, WORKER_ENABLED: '1', JOB_POLL_MS: '20' });
      try {
        const deadline = Date.now() + 20_000;
        while ((await opCounts(store.db, txnIds)).pending > 0 && Date.now() < deadline) await sleep(50);
        const counts = await opCounts(store.db, txnIds);
        expect(counts).toMatchObject({ landed: 15, pending: 0, rejected: 0 });
        expect(counts.eventTokens.filter((x) => tokens.includes(x)).sort()).toEqual([...tokens].sort());
        for (const txnId of txnIds) {
          const got = await call(second.baseUrl, 'GET', `/transactions/${txnId}`);
          expect(got.body).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 1000 }, settlementSummary: { count: 2 } });
        }
      } finally {
        await second.kill('SIGTERM');
      }
    }, 90_000);
  });

  describe.skipIf(!engineAvailable(engine))(`two workers on one database [${engine}]`, () => {
    let tdb: TestDatabase;
    const services: Services[] = [];
    beforeAll(async () => {
      tdb = await createTestDatabase(engine);
      for (let i = 0; i < 2; i++) services.push(await openServices(loadConfig({ ...tdb.env, LOG_LEVEL: 'silent', JOB_POLL_MS: '5', JOB_CONCURRENCY: '8' })));
    });
    afterAll(async () => {
      for (const s of services) await s.store.close();
      await tdb?.drop();
    });

    it('never apply one job twice: landed operations == accepted, one event each', async () => {
      const [a, b] = services as [Services, Services];
      const { createPlatformWithToken } = await import('../../src/domain/platform/platforms.js');
      const { platformId } = await createPlatformWithToken(a.store, a.tokens, 'race', 'sandbox');
      const holder = await insertTestCustomer({ services: a }, { platformId }, 'BUSINESS', 'APPROVED');
      const holderAccount = await fundCustomer(a, platformId, holder);
      const card = await a.cards.create(platformId, 'sandbox', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [holderAccount] });
      await provisionCards(a);
      const txnIds: string[] = [];
      const tokens: string[] = [];
      for (let i = 0; i < 20; i++) {
        const acc = await a.cardSimulations.authorize(platformId, card.id, { amount: 50, currency: { code: 'USD' }, merchant: MERCHANT });
        txnIds.push(acc.cardTransactionId);
        tokens.push(acc.issuerTransactionToken);
        for (let k = 0; k < 5; k++) tokens.push((await a.cardSimulations.simulate(platformId, card.id, 'clearing', { cardTransactionId: acc.cardTransactionId, amount: 10 })).issuerTransactionToken);
      }
      const log = (await import('fastify')).default({ logger: false }).log;
      const runs = [0, 0];
      const counting = (i: number) => ({ ...cardSimulationHandler, run: (...args: Parameters<typeof cardSimulationHandler.run>) => (runs[i]!++, cardSimulationHandler.run(...args)) });
      const workers = [new Worker(a, [counting(0)], log).start(), new Worker(b, [counting(1)], log).start()];
      try {
        const deadline = Date.now() + 30_000;
        while ((await opCounts(a.store.db, txnIds)).pending > 0 && Date.now() < deadline) await sleep(20);
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
      const counts = await opCounts(a.store.db, txnIds);
      expect(runs[0]! + runs[1]!).toBe(120);
      expect(runs[0]).toBeGreaterThan(0);
      expect(runs[1]).toBeGreaterThan(0);
      expect(counts).toMatchObject({ landed: 120, pending: 0, rejected: 0 });
      expect(counts.eventTokens.sort()).toEqual([...tokens].sort());
      const rows = await a.store.db.selectFrom('card_transactions').select(['status', 'settled_amount', 'settlement_count']).where('id', 'in', txnIds).execute();
      expect(rows.every((r) => r.status === 'SETTLED' && r.settled_amount === 50 && r.settlement_count === 5)).toBe(true);
      const owners = await a.store.db.selectFrom('jobs').select(['state']).where('kind', '=', CARD_SIMULATION_JOB).execute();
      expect(owners.every((j) => j.state === 'done')).toBe(true);
    }, 60_000);
  });
}

describeEachEngine(
  'card simulation lease takeover',
  (t) => {
    it('an operation claimed by a worker that died lands once after the lease expires', async () => {
      const card = { id: (await activeFundedCard(t)).cardId };
      const res = await t.caller.req('POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 10, currency: { code: 'USD' }, merchant: MERCHANT });
      const { cardTransactionId } = res.json();
      const [claimed] = await claimDueJobs(t.services.store, { owner: 'crashed', kinds: [CARD_SIMULATION_JOB], leaseMs: 300, limit: 10 });
      expect(claimed).toMatchObject({ kind: CARD_SIMULATION_JOB, lease_owner: 'crashed', attempts: 1 });
      expect(JSON.parse(claimed!.payload)).toMatchObject({ cardTransactionId });
      const started = Date.now();
      await drainCardJobs(t.services, t.app.log);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      const body = (await t.caller.req('GET', `/transactions/${cardTransactionId}`)).json();
      expect(body.operations).toEqual([expect.objectContaining({ kind: 'AUTHORIZATION', status: 'LANDED' })]);
      const job = await t.services.store.db.selectFrom('jobs').selectAll().where('id', '=', claimed!.id).executeTakeFirstOrThrow();
      expect(job).toMatchObject({ state: 'done', attempts: 2 });
    });
  },
  { JOB_POLL_MS: '20' },
);
