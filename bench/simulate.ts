import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '../src/cli/server-process.js';
import autocannon from 'autocannon';
import { newId } from '../src/domain/ids.js';
import { insertCustomer } from '../src/store/customers-repo.js';
import { openStore } from '../src/store/store.js';
import { percentile } from './stats.js';

/**
 * `npm run bench -- simulate [--duration 10] [--connections 64] [--kind authorization|clearing]
 * [--transactions 64]`: starts the real server (child process, fresh SQLite directory, in-process
 * worker, LOG_LEVEL=warn), creates a customer and a card, loads one simulator with autocannon and
 * prints accepted simulations per second and the time from acceptance to the landed operation.
 *
 * Landing time is read from the database after the run: every operation stores `accepted_at`
 * (taken in the transaction that commits just before the 202 is sent) and `processed_at` (taken
 * in the worker's transaction that lands it); the difference is the 202-to-landed time.
 */
const MERCHANT = { descriptor: 'BENCH COFFEE', mcc: '5814', country: 'US' };


export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '64' },
      kind: { type: 'string', default: 'authorization' },
      transactions: { type: 'string', default: '64' },
    },
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const kind = values.kind === 'clearing' ? 'clearing' : 'authorization';
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-simulate-'));
  const server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: undefined, WORKER_ENABLED: '1' });
  const store = openStore({ dataDir });
  try {
    const base = server.baseUrl;
    const { clientId, clientSecret: secret } = server.credentials!;
    const headers = { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, string>;
    };

    const { platform_id } = await store.db.selectFrom('api_tokens').select('platform_id').executeTakeFirstOrThrow();
    const customerId = newId('Customer');
    const now = Date.now();
    await insertCustomer(store.db, {
      id: customerId, platform_id, customer_type: 'INDIVIDUAL', platform_customer_id: 'bench', kyc_status: 'UNVERIFIED', data: '{}', owner_count: 0, created_at: now, updated_at: now,
    });
    const card = await post('/cards', { cardholderId: customerId, form: 'VIRTUAL' });
    const path = `${new URL(base).pathname}/sandbox/cards/${card.id}/simulate/${kind}`;

    // Clearing needs open transactions: many, so the per-transaction ordering does not serialize the run.
    const txnIds: string[] = [];
    if (kind === 'clearing') {
      for (let i = 0; i < Number(values.transactions); i++) {
        txnIds.push((await post(`/sandbox/cards/${card.id}/simulate/authorization`, { amount: 1_000_000_000, merchant: MERCHANT })).cardTransactionId!);
      }
      await waitLanded(store, 0, 60_000);
    }
    const loadStart = Date.now();
    let i = 0;
    const result = await autocannon({
      url: base.replace(/\/[^/]*$/, ''),
      connections,
      duration,
      requests: [
        {
          method: 'POST',
          path,
          headers,
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify(kind === 'clearing' ? { cardTransactionId: txnIds[i++ % txnIds.length], amount: 1 } : { amount: 1250, merchant: MERCHANT }),
          }),
        },
      ],
    });
    const loadEnd = Date.now();
    const drained = await waitLanded(store, loadStart, 120_000);
    const ops = await store.db
      .selectFrom('card_operations')
      .select(['accepted_at', 'processed_at', 'status'])
      .where('accepted_at', '>=', loadStart)
      .execute();
    const lags = ops.filter((o) => o.status === 'LANDED' && o.processed_at !== null).map((o) => o.processed_at! - o.accepted_at).sort((a, b) => a - b);
    const accepted = result['2xx'];
    const rows: [string, string][] = [
      ['simulator', `${kind} (${connections} connections, ${duration} s, SQLite, in-process worker)`],
      ['accepted simulations (202)', String(accepted)],
      ['accepted simulations/s', (accepted / ((loadEnd - loadStart) / 1000)).toFixed(0)],
      ['non-2xx / errors', `${result.non2xx} / ${result.errors}`],
      ['API latency p50 / p99 (ms)', `${result.latency.p50} / ${result.latency.p99}`],
      ['operations landed', `${lags.length} of ${ops.length} accepted in the run (${ops.filter((o) => o.status === 'REJECTED').length} rejected)`],
      ['202 -> landed p50 (ms)', String(percentile(lags, 50))],
      ['202 -> landed p99 (ms)', String(percentile(lags, 99))],
      ['202 -> landed max (ms)', String(lags.at(-1) ?? NaN)],
      ['backlog drained after load (ms)', String(drained - loadEnd)],
    ];
    const w = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`\n${rows.map(([k, v]) => `| ${k.padEnd(w)} | ${v} |`).join('\n')}\n\n`);
    process.stdout.write('Landing time = processed_at - accepted_at of each operation, read from the database after the run.\n');
  } finally {
    await server.stop();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Waits until no operation accepted since `since` is pending; returns when that happened. */
async function waitLanded(store: ReturnType<typeof openStore>, since: number, timeoutMs: number): Promise<number> {
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
