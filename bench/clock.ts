import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { ServerProcess } from '../src/cli/server-process.js';
import { newId } from '../src/domain/shared/ids.js';
import { insertCustomer } from '../src/store/customers-repo.js';
import { openStore, type Store } from '../src/store/store.js';
import { ENGINE_LABEL, emptyDatabase, parseEngines, startServer, type BenchDatabase, type Engine } from './engines.js';
import { engineTable } from './report.js';

/**
 * `npm run bench -- clock [--engine sqlite|postgres|both] [--authorizations 10000] [--concurrency 32]`:
 * starts the real server on each engine (child process, empty database, in-process worker), opens
 * that many authorizations on one card over HTTP and waits for them to land, then advances the
 * platform's clock a year and times the 200: by then every authorization has expired (checked,
 * with one CARD_TRANSACTION.EXPIRED event each). One engine at a time, SQLite first.
 */
const MERCHANT = { descriptor: 'BENCH COFFEE', mcc: '5814', country: 'US' };
const YEAR_SECONDS = 365 * 86_400;

interface Result {
  setupMs: number;
  advanceMs: number;
  expired: number;
  events: number;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { engine: { type: 'string', default: 'both' }, authorizations: { type: 'string', default: '10000' }, concurrency: { type: 'string', default: '32' } } });
  const engines = parseEngines(values.engine);
  const count = Number(values.authorizations);
  const results = new Map<Engine, Result>();
  for (const engine of engines) {
    process.stderr.write(`${ENGINE_LABEL[engine]}: ${count} authorizations\n`);
    results.set(engine, await measure(engine, count, Number(values.concurrency)));
  }
  const text = (f: (r: Result) => string) => Object.fromEntries(engines.map((e) => [e, f(results.get(e)!)]));
  const number = (f: (r: Result) => number) => Object.fromEntries(engines.map((e) => [e, f(results.get(e)!)]));
  process.stdout.write(`\nAdvance a platform's sandbox clock a year over ${count} open authorizations (in-process worker), one engine at a time\n\n`);
  process.stdout.write(
    engineTable(engines, [
      { label: 'authorizations opened and landed (s)', values: text((r) => (r.setupMs / 1000).toFixed(1)) },
      { label: 'advance a year: time to the 200 (ms)', values: text((r) => String(Math.round(r.advanceMs))), compare: number((r) => r.advanceMs) },
      { label: 'expired per second', values: text((r) => ((r.expired / r.advanceMs) * 1000).toFixed(0)), compare: number((r) => (r.expired / r.advanceMs) * 1000) },
      { label: 'EXPIRED transactions / EXPIRED events', values: text((r) => `${r.expired} / ${r.events}`) },
    ]),
  );
}

async function measure(engine: Engine, count: number, concurrency: number): Promise<Result> {
  let db: BenchDatabase | undefined;
  let server: ServerProcess | undefined;
  let store: Store | undefined;
  try {
    db = await emptyDatabase(engine, 'clock');
    server = await startServer(db, { WORKER_ENABLED: '1' });
    store = openStore(db.store);
    const headers = { authorization: server.auth!, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server!.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as any;
    };
    const started = performance.now();
    const { platform_id } = await store.db.selectFrom('api_tokens').select('platform_id').executeTakeFirstOrThrow();
    const customerId = newId('Customer');
    const now = Date.now();
    await store.transaction((uow) => insertCustomer(uow, {
      id: customerId, platform_id, customer_type: 'INDIVIDUAL', platform_customer_id: 'bench', kyc_status: 'APPROVED', data: '{}', owner_count: 0,
      uma_address: '$bench@sandbox.uma.invalid', is_deleted: 0, region: null, currency_list: '', created_at: now, updated_at: now,
    }));
    const accountId = (await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&type=INTERNAL_FIAT&currency=USD`)).data[0].id as string;
    await call('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: count * 1_000 });
    const card = await call('POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId] });
    await waitFor(async () => (await call('GET', `/cards/${card.id}`)).state === 'ACTIVE', 'the card to be ACTIVE');
    let sent = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (sent < count) {
        sent += 1;
        await call('POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 1_000, currency: { code: 'USD' }, merchant: MERCHANT });
      }
    }));
    await waitFor(async () => (await countStatus(store!, 'AUTHORIZED')) === count, `${count} authorizations to land`);
    const setupMs = performance.now() - started;
    const before = performance.now();
    await call('POST', '/sandbox/clock/advance', { seconds: YEAR_SECONDS });
    const advanceMs = performance.now() - before;
    const events = await store.db.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', sql.lit('CARD_TRANSACTION.EXPIRED')).executeTakeFirstOrThrow();
    return { setupMs, advanceMs, expired: await countStatus(store, 'EXPIRED'), events: Number(events.n) };
  } finally {
    await server?.stop();
    await store?.close();
    await db?.drop();
  }
}

async function countStatus(store: Store, status: string): Promise<number> {
  const row = await store.db.selectFrom('card_transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', status).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function waitFor(done: () => Promise<boolean>, what: string, timeoutMs = 600_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await done()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
