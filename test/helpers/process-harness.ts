import { afterAll, beforeAll, describe, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openServices, type Services } from '../../src/services.js';
import type { Executor } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type EngineName, type TestDatabase } from './engines.js';
import { fundCustomerAt } from './money.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { engineAvailable } from './test-app.js';
import { until } from './until.js';

/** How long a server may take to listen: its TypeScript is compiled as it starts, slowly on a busy machine. */
const START_TIMEOUT_MS = 60_000;

/** What the harness needs of a webhook receiver (HoldingReceiver, WebhookReceiver). */
interface Receiver {
  readonly url: string;
  trust(config: { webhookSecret: string; webhookPublicKey: string }): unknown;
  stop(): Promise<void>;
}

/**
 * The setup of the tests that run the real server as OS processes (killed, restarted, two at once)
 * over one database. Filled in by beforeAll; whatever it started is stopped by afterAll.
 */
export interface ProcessHarness {
  engine: EngineName;
  db: TestDatabase;
  /** Services over the same database in the test's process, without a worker: for reading the database and for setup. */
  services: Services;
  store: Executor;
  /** The Authorization header of the credentials the first server printed (a first start, on the empty database). */
  auth: string;
  /** Starts the real server over the database with the suite's environment and `env`; it is killed at the end if still running. */
  startServer(env?: Record<string, string>): Promise<ServerProcess>;
  /** Calls the server's API with `auth`; expects a 2xx and answers the JSON body. */
  call(server: ServerProcess, method: string, path: string, body?: unknown): Promise<any>;
  /** Keeps a started receiver, to stop it at the end; answers it. */
  receiver<R extends Receiver>(receiver: R): R;
  /** Points the platform's webhooks at the receiver, which from then on verifies with the platform's keys. */
  connect(server: ServerProcess, receiver: Receiver): Promise<void>;
  /** A new sandbox individual (APPROVED from its creation) with its USD internal account funded. */
  fundedCustomer(server: ServerProcess, amount?: number): Promise<{ customerId: string; accountId: string }>;
  /** Jobs leased and unfinished right now, per kind (those a process holds, or held when it died). */
  leasedJobs(): Promise<Map<string, number>>;
  /** Waits until every webhook event in the database is DELIVERED. */
  untilEveryEventDelivered(timeoutMs: number): Promise<void>;
}

/**
 * Runs `body` once per engine (all unless `engines` says), each over a fresh database of its own,
 * with the harness the real server processes of its tests are started from.
 */
export function describeWithProcesses(name: string, opts: { env: Record<string, string>; engines?: EngineName[] }, body: (h: ProcessHarness) => void): void {
  for (const engine of opts.engines ?? ENGINES) {
    describe.skipIf(!engineAvailable(engine))(`${name} [${engine}]`, () => {
      const h = { engine } as ProcessHarness;
      const servers: ServerProcess[] = [];
      const receivers: Receiver[] = [];
      beforeAll(async () => {
        h.db = await createTestDatabase(engine);
        h.services = await openServices(loadConfig({ ...h.db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent' }));
        h.store = h.services.store.db;
      });
      afterAll(async () => {
        for (const s of servers) await s.kill('SIGKILL');
        for (const r of receivers) await r.stop();
        await h.services?.store.close();
        await h.db?.drop();
      });
      h.startServer = async (env = {}) => {
        const server = await startServerProcess({ ...h.db.env, ...opts.env, ...env }, START_TIMEOUT_MS);
        servers.push(server);
        h.auth ??= server.auth!;
        return server;
      };
      h.call = async (server, method, path, body) => {
        const res = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { authorization: h.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
        return text === '' ? undefined : JSON.parse(text);
      };
      h.receiver = (receiver) => {
        receivers.push(receiver);
        return receiver;
      };
      h.connect = async (server, receiver) => {
        receiver.trust(await h.call(server, 'PATCH', '/config', { webhookEndpoint: receiver.url }));
      };
      h.fundedCustomer = async (server, amount) => {
        const customerId = (await h.call(server, 'POST', '/customers', { customerType: 'INDIVIDUAL' })).id as string;
        return { customerId, accountId: await fundCustomerAt(server.baseUrl, h.auth, customerId, amount) };
      };
      h.leasedJobs = async () => {
        const rows = await h.store
          .selectFrom('jobs')
          .select((eb) => ['kind', eb.fn.countAll<number>().as('n')])
          .where('state', '=', 'queued')
          .where('lease_owner', 'is not', null)
          .groupBy('kind')
          .execute();
        return new Map(rows.map((r) => [r.kind, Number(r.n)]));
      };
      h.untilEveryEventDelivered = async (timeoutMs) => {
        await until('every event delivered', async () => {
          const undelivered = await h.store.selectFrom('webhook_events').select('id').where('delivery_state', '!=', 'DELIVERED').limit(1).execute();
          return undelivered.length === 0 ? true : undefined;
        }, timeoutMs);
      };
      body(h);
    });
  }
}
