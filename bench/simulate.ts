import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { ServerProcess } from '../src/cli/server-process.js';
import { newId } from '../src/domain/shared/ids.js';
import { insertCustomer } from '../src/store/customers-repo.js';
import { openStore, type Store } from '../src/store/store.js';
import { ENGINE_LABEL, describeRounds, emptyDatabase, parseEngines, roundOrder, startServer, type BenchDatabase, type Engine } from './engines.js';
import { engineTable } from './report.js';
import { median, percentile } from './stats.js';

/**
 * `npm run bench -- simulate [--engine sqlite|postgres|both] [--duration 10] [--rounds 2]
 * [--connections 64] [--kind authorization|clearing] [--transactions 64]`: starts the real server
 * on each engine (child process, empty database, in-process worker, LOG_LEVEL=warn), creates a
 * customer and a card on each, then loads one simulator with autocannon, one engine at a time:
 * each engine `rounds` times for `duration` s, in the order SQLite, PostgreSQL, PostgreSQL,
 * SQLite, ..., each load followed by its backlog's drain. Prints accepted simulations per second
 * and the time from acceptance to the landed operation, per engine and PostgreSQL/SQLite.
 *
 * Landing time is read from the database after each load: every operation stores `accepted_at`
 * (taken in the transaction that commits just before the 202 is sent) and `processed_at` (taken
 * in the worker's transaction that lands it); the difference is the 202-to-landed time.
 */
const MERCHANT = { descriptor: 'BENCH COFFEE', mcc: '5814', country: 'US' };

/** One engine under test: its server, its store (read by the bench) and the requests it is loaded with. */
interface Target {
  engine: Engine;
  db: BenchDatabase;
  server: ServerProcess;
  store: Store;
  path: string;
  headers: Record<string, string>;
  nextBody: () => string;
}

/** What one engine's loads added up to. */
interface Totals {
  accepted: number;
  loadSeconds: number;
  non2xx: number;
  errors: number;
  apiLatencies: number[];
  lags: number[];
  operations: number;
  rejected: number;
  drains: number[];
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '2' },
      connections: { type: 'string', default: '64' },
      kind: { type: 'string', default: 'authorization' },
      transactions: { type: 'string', default: '64' },
    },
  });
  const engines = parseEngines(values.engine);
  const duration = Number(values.duration);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  const kind = values.kind === 'clearing' ? 'clearing' : 'authorization';
  const targets: Target[] = [];
  try {
    for (const engine of engines) targets.push(await prepare(engine, kind, Number(values.transactions)));
    const totals = new Map<Engine, Totals>(engines.map((e) => [e, noLoadYet()]));
    for (let r = 0; r < rounds; r++) {
      for (const target of roundOrder(targets, r)) {
        process.stderr.write(`round ${r + 1} of ${rounds}: ${ENGINE_LABEL[target.engine]}\n`);
        await loadOnce(target, connections, duration, totals.get(target.engine)!);
      }
    }
    const summary = new Map(engines.map((e) => [e, summarize(totals.get(e)!)]));
    const text = (f: (s: Summary) => string) => Object.fromEntries(engines.map((e) => [e, f(summary.get(e)!)]));
    const number = (f: (s: Summary) => number) => Object.fromEntries(engines.map((e) => [e, f(summary.get(e)!)]));
    process.stdout.write(
      `\nSimulate ${kind} (${connections} connections, in-process worker): each engine loaded ${rounds} times for ${duration} s, ` +
        `one engine at a time in the order ${describeRounds(engines, rounds)}, each load followed by its backlog's drain\n\n`,
    );
    process.stdout.write(
      engineTable(engines, [
        { label: 'accepted simulations (202)', values: text((s) => String(s.accepted)) },
        { label: 'accepted simulations/s', values: text((s) => s.acceptedPerSecond.toFixed(0)), compare: number((s) => s.acceptedPerSecond) },
        { label: 'non-2xx / errors', values: text((s) => `${s.non2xx} / ${s.errors}`) },
        { label: 'API latency p50 / p99 (ms)', values: text((s) => `${s.apiP50.toFixed(1)} / ${s.apiP99.toFixed(1)}`) },
        { label: 'operations landed', values: text((s) => `${s.landed} of ${s.operations} (${s.rejected} rejected)`) },
        { label: '202 -> landed p50 (ms)', values: text((s) => String(s.landedP50)), compare: number((s) => s.landedP50) },
        { label: '202 -> landed p99 (ms)', values: text((s) => String(s.landedP99)), compare: number((s) => s.landedP99) },
        { label: '202 -> landed max (ms)', values: text((s) => String(s.landedMax)) },
        { label: 'backlog drained after a load (ms, median and range)', values: text((s) => `${s.drain} (${s.drainRange})`), compare: number((s) => s.drain) },
      ]),
    );
    process.stdout.write('\nLanding time = processed_at - accepted_at of each operation, read from the database after each load.\n');
  } finally {
    for (const t of targets) {
      await t.server.stop();
      await t.store.close();
      await t.db.drop();
    }
  }
}

function noLoadYet(): Totals {
  return { accepted: 0, loadSeconds: 0, non2xx: 0, errors: 0, apiLatencies: [], lags: [], operations: 0, rejected: 0, drains: [] };
}

interface Summary {
  accepted: number;
  acceptedPerSecond: number;
  non2xx: number;
  errors: number;
  apiP50: number;
  apiP99: number;
  landed: number;
  operations: number;
  rejected: number;
  landedP50: number;
  landedP99: number;
  landedMax: number;
  drain: number;
  drainRange: string;
}

function summarize(t: Totals): Summary {
  const api = [...t.apiLatencies].sort((a, b) => a - b);
  return {
    accepted: t.accepted,
    acceptedPerSecond: t.accepted / t.loadSeconds,
    non2xx: t.non2xx,
    errors: t.errors,
    apiP50: percentile(api, 50),
    apiP99: percentile(api, 99),
    landed: t.lags.length,
    operations: t.operations,
    rejected: t.rejected,
    landedP50: percentile(t.lags, 50),
    landedP99: percentile(t.lags, 99),
    landedMax: t.lags.at(-1) ?? NaN,
    drain: median(t.drains),
    drainRange: `${Math.min(...t.drains)}-${Math.max(...t.drains)}`,
  };
}

/** The server on an empty database of this engine, with a card to simulate on (and open transactions to clear). */
async function prepare(engine: Engine, kind: 'authorization' | 'clearing', transactions: number): Promise<Target> {
  const db = await emptyDatabase(engine, 'simulate');
  const server = await startServer(db, { WORKER_ENABLED: '1' });
  const store = openStore(db.store);
  try {
    const base = server.baseUrl;
    const headers = { authorization: server.auth!, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, string>;
    };
    const { platform_id } = await store.db.selectFrom('api_tokens').select('platform_id').executeTakeFirstOrThrow();
    const customerId = newId('Customer');
    const now = Date.now();
    await store.transaction((uow) => insertCustomer(uow, {
      id: customerId, platform_id, customer_type: 'INDIVIDUAL', platform_customer_id: 'bench', kyc_status: 'APPROVED', data: '{}', owner_count: 0,
      uma_address: '$bench@sandbox.uma.invalid', is_deleted: 0, region: null, currency_list: '', created_at: now, updated_at: now,
    }));
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers: { authorization: headers.authorization } });
      if (res.status >= 300) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as any;
    };
    // Authorizations are declined without the funds: enough for every authorization the run can send.
    const accountId = (await get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&type=INTERNAL_FIAT&currency=USD`)).data[0].id as string;
    for (let funded = 0; funded < transactions * 1_000_000_000 + 1e12; funded += 100_000_000_000) {
      await post(`/sandbox/internal-accounts/${accountId}/fund`, { amount: 100_000_000_000 });
    }
    // A card needs an APPROVED cardholder (written so above) and its internal account as funding source; it is ACTIVE once provisioned.
    const card = await post('/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId] });
    for (const deadline = Date.now() + 30_000; (await get(`/cards/${card.id}`)).state !== 'ACTIVE'; ) {
      if (Date.now() > deadline) throw new Error(`card ${card.id} did not become ACTIVE`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const path = `${new URL(base).pathname}/sandbox/cards/${card.id}/simulate/${kind}`;
    if (kind === 'authorization') {
      const body = JSON.stringify({ amount: 1250, currency: { code: 'USD' }, merchant: MERCHANT });
      return { engine, db, server, store, path, headers, nextBody: () => body };
    }
    // Clearing needs open transactions: many, so the per-transaction ordering does not serialize the run.
    const txnIds: string[] = [];
    for (let i = 0; i < transactions; i++) {
      txnIds.push((await post(`/sandbox/cards/${card.id}/simulate/authorization`, { amount: 1_000_000_000, currency: { code: 'USD' }, merchant: MERCHANT })).cardTransactionId!);
    }
    await waitLanded(store, 0, 60_000);
    let i = 0;
    return { engine, db, server, store, path, headers, nextBody: () => JSON.stringify({ cardTransactionId: txnIds[i++ % txnIds.length], amount: 1 }) };
  } catch (err) {
    await server.stop();
    await store.close();
    await db.drop();
    throw err;
  }
}

/** One load of `duration` s and its drain, added to the engine's totals. */
async function loadOnce(target: Target, connections: number, duration: number, totals: Totals): Promise<void> {
  const loadStart = Date.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: new URL(target.server.baseUrl).origin,
        connections,
        duration,
        requests: [{ method: 'POST', path: target.path, headers: target.headers, setupRequest: (req) => ({ ...req, body: target.nextBody() }) }],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => totals.apiLatencies.push(ms));
  });
  const loadEnd = Date.now();
  const drained = await waitLanded(target.store, loadStart, 120_000);
  const ops = await target.store.db.selectFrom('card_operations').select(['accepted_at', 'processed_at', 'status']).where('accepted_at', '>=', loadStart).execute();
  totals.accepted += result['2xx'];
  totals.loadSeconds += (loadEnd - loadStart) / 1000;
  totals.non2xx += result.non2xx;
  totals.errors += result.errors;
  totals.operations += ops.length;
  totals.rejected += ops.filter((o) => o.status === 'REJECTED').length;
  totals.lags.push(...ops.filter((o) => o.status === 'LANDED' && o.processed_at !== null).map((o) => o.processed_at! - o.accepted_at));
  totals.lags.sort((a, b) => a - b);
  totals.drains.push(drained - loadEnd);
}

/** Waits until no operation accepted since `since` is pending; returns when that happened. */
async function waitLanded(store: Store, since: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { n } = await store.db
      .selectFrom('card_operations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'PENDING')
      .where('accepted_at', '>=', since)
      .executeTakeFirstOrThrow();
    if (Number(n) === 0) return Date.now();
    if (Date.now() > deadline) throw new Error(`${n} operations still pending after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
