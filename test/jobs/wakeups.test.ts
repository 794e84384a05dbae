import { JOBS_WAKEUP_CHANNEL } from '../../src/store/jobs-repo.js';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { activeCardOver, fetchCall } from '../helpers/fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { engineAvailable } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { fundCustomerAt } from '../helpers/money.js';

// Both polls far longer than any latency this test accepts: only a wake-up explains a fast landing.
const POLL_MS = 20_000;

describe.skipIf(!engineAvailable('postgres'))('job wake-ups between processes on PostgreSQL (LISTEN/NOTIFY)', () => {
  let db: TestDatabase | undefined;
  let admin: pg.Client | undefined;
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await admin?.end();
    await db?.drop();
  });

  it('an operation accepted by an API-only process lands at once in another process whose worker is idle, also after its listening connection dropped', { timeout: 120_000 }, async () => {
    db = await createTestDatabase('postgres');
    const api = await startServerProcess({ ...db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'error' });
    servers.push(api);
    const worker = await startServerProcess({ ...db.env, JOB_POLL_MS: String(POLL_MS), JOB_SAFETY_POLL_MS: String(POLL_MS), LOG_LEVEL: 'error' });
    servers.push(worker);
    admin = new pg.Client({ connectionString: db.databaseUrl });
    await admin.connect();
    const auth = api.auth!;
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${api.baseUrl}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, path).toBeLessThan(300);
      return (await res.json()) as { id: string; issuerTransactionToken: string };
    };
    const holder = (await call('/customers', { customerType: 'INDIVIDUAL' })).id;
    await fundCustomerAt(api.baseUrl, auth, holder);
    const cardId = (await activeCardOver(fetchCall(api.baseUrl, auth), holder)).id;
    const listeners = async (): Promise<number[]> =>
      // The job wake-ups' listening connection (each process also listens for sandbox clock advances on another).
      (await admin!.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND query LIKE $1", [`%${JOBS_WAKEUP_CHANNEL}%`])).rows.map((r: { pid: number }) => r.pid);
    const [first] = await until('the worker listening', async () => ((await listeners()).length === 1 ? listeners() : undefined), 10_000);

    /** Milliseconds from sending a simulation to the API-only process until its operation landed. */
    const landingMs = async (): Promise<number> => {
      // Let the worker settle into its idle wait first.
      await new Promise((r) => setTimeout(r, 300));
      const sent = Date.now();
      const { issuerTransactionToken } = await call(`/sandbox/cards/${cardId}/simulate/authorization`, { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'WAKE' } });
      await until(
        'the operation landed',
        async () => {
          const { rows } = await admin!.query("SELECT status FROM card_operations WHERE issuer_transaction_token = $1", [issuerTransactionToken]);
          return rows[0]?.status === 'LANDED' ? true : undefined;
        },
        POLL_MS / 2,
        5,
      );
      return Date.now() - sent;
    };

    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) latencies.push(await landingMs());
    expect(Math.max(...latencies), `landing latencies ${latencies.join(', ')} ms`).toBeLessThan(1_000);

    // The listening connection is cut (a failover, a proxy's idle timeout): the worker reconnects.
    const { rows } = await admin.query('SELECT pg_terminate_backend($1) AS ok', [first]);
    expect(rows[0].ok).toBe(true);
    await until('the worker listening again', async () => {
      const now = await listeners();
      return now.length === 1 && now[0] !== first ? true : undefined;
    }, 10_000, 20);
    const after: number[] = [];
    for (let i = 0; i < 2; i++) after.push(await landingMs());
    expect(Math.max(...after), `landing latencies after reconnecting ${after.join(', ')} ms`).toBeLessThan(1_000);
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(await api.stop('SIGTERM')).toBe(0);
  });
});
