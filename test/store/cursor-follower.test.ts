import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { activeCardOver, fetchCall } from '../helpers/fixtures.js';
import { HoldingReceiver } from '../helpers/holding-receiver.js';
import { businessCustomer, ownerInput } from '../helpers/owners.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { pendingOperations, startTraffic } from '../helpers/simulation-traffic.js';
import { engineAvailable } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { fundCustomerAt } from '../helpers/money.js';

const SERVER_ENV = { JOB_POLL_MS: '20', LOG_LEVEL: 'error' };
const WRITE_MS = 6_000;
const MIN_ROWS = 25;

interface ListPage {
  data: { id: string }[];
  hasMore: boolean;
  nextCursor?: string;
}

/**
 * A client syncing a list incrementally: it follows `nextCursor` and, at the end of the list,
 * asks again from its last cursor (rows of that last page it has already seen are not new).
 * `duplicates` counts rows served again after the client had moved past them with nextCursor
 * (a row that committed behind them pushed them onto a later page).
 */
class Follower {
  readonly seen = new Set<string>();
  duplicates = 0;
  private cursor: string | undefined;
  private tail = new Set<string>();

  constructor(private readonly get: (query: string) => Promise<ListPage>, private readonly path: string) {}

  /** One page; true when it was the end of the list. */
  async step(): Promise<boolean> {
    const sep = this.path.includes('?') ? '&' : '?';
    const page = await this.get(`${this.path}${sep}limit=7${this.cursor === undefined ? '' : `&cursor=${this.cursor}`}`);
    for (const { id } of page.data) {
      if (this.tail.has(id)) continue;
      if (this.seen.has(id)) this.duplicates++;
      this.seen.add(id);
    }
    if (page.hasMore) {
      this.cursor = page.nextCursor;
      this.tail = new Set();
      return false;
    }
    for (const { id } of page.data) this.tail.add(id);
    return true;
  }
}

for (const engine of ENGINES) {
  // PostgreSQL with two processes writing (and landing simulations); SQLite with its one process.
  const processes = engine === 'postgres' ? 2 : 1;
  describe.skipIf(!engineAvailable(engine))(`a client following nextCursor while ${processes} process(es) write (${engine})`, () => {
    let db: TestDatabase | undefined;
    let store: Store | undefined;
    let receiver: HoldingReceiver | undefined;
    const servers: ServerProcess[] = [];
    afterAll(async () => {
      for (const s of servers) await s.kill('SIGKILL');
      await receiver?.stop();
      await store?.close();
      await db?.drop();
    });

    it('sees every owner, customer, transaction and webhook event exactly once', { timeout: 300_000 }, async () => {
      db = await createTestDatabase(engine);
      for (let i = 0; i < processes; i++) servers.push(await startServerProcess({ ...db.env, ...SERVER_ENV }));
      const bases = servers.map((s) => s.baseUrl);
      const auth = servers[0]!.auth!;
      let calls = 0;
      const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
        const res = await fetch(`${bases[calls++ % bases.length]}${path}`, {
          method,
          headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? null : JSON.stringify(body),
        });
        const json = (await res.json()) as T;
        expect(res.status, JSON.stringify(json)).toBeLessThan(300);
        return json;
      };
      receiver = await new HoldingReceiver().start();
      receiver.release();
      receiver.trust(await call('PATCH', '/config', { webhookEndpoint: receiver.url }));
      const business = (await call<{ id: string }>('POST', '/customers', businessCustomer())).id;
      const holder = (await call<{ id: string }>('POST', '/customers', { customerType: 'INDIVIDUAL' })).id;
      await fundCustomerAt(bases[0]!, auth, holder);
      const cardIds: string[] = [];
      for (let i = 0; i < 8; i++) cardIds.push((await activeCardOver(fetchCall(bases[i % bases.length]!, auth), holder)).id);

      const lists = {
        owners: new Follower((q) => call('GET', q), `/beneficial-owners?customerId=${business}`),
        customers: new Follower((q) => call('GET', q), '/customers'),
        transactions: new Follower((q) => call('GET', q), '/transactions?sortOrder=asc' /* the guarantee is for ascending order; the default is newest first */),
        webhookEvents: new Follower((q) => call('GET', q), '/webhook-events'),
      };
      let writing = true;
      let following = true;
      const followers = Object.values(lists).map(async (f) => {
        while (following) await f.step();
      });
      const traffic = startTraffic({ baseUrls: bases, auth, cardIds, clients: 6 });
      const ownersCreated: string[] = [];
      const writer = async (n: number) => {
        for (let i = 0; writing; i++) {
          ownersCreated.push((await call<{ id: string }>('POST', '/beneficial-owners', ownerInput(business, n * 10_000 + i))).id);
          await call('POST', '/customers', { customerType: 'INDIVIDUAL' });
        }
      };
      const writers = Array.from({ length: 6 }, (_, n) => writer(n));
      // At least WRITE_MS of writes, and enough rows of every list however loaded the machine is.
      const started = Date.now();
      const authorized = () => traffic.chains.filter((c) => c.cardTransactionId !== undefined).length;
      await until('enough rows written', async () => (Date.now() - started >= WRITE_MS && ownersCreated.length >= MIN_ROWS && authorized() >= MIN_ROWS ? true : undefined), 120_000, 100);
      writing = false;
      await Promise.all([traffic.stop(), ...writers]);
      store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      const reader = store.db;
      await until('every operation landed', async () => ((await pendingOperations(reader)) === 0 ? true : undefined), 90_000);
      following = false;
      await Promise.all(followers);

      // Drained: each follower reads on to the end of its list once everything has committed.
      for (const f of Object.values(lists)) while (!(await f.step()));

      const ids = async (q: Promise<{ id: string }[]>) => (await q).map((r) => r.id).sort();
      const expected = {
        owners: await ids(reader.selectFrom('beneficial_owners').select('id').where('customer_id', '=', business).execute()),
        customers: await ids(reader.selectFrom('customers').select('id').execute()),
        transactions: await ids(reader.selectFrom('card_transactions').select('id').where('status', '!=', 'PENDING').execute()),
        webhookEvents: await ids(reader.selectFrom('webhook_events').select('id').execute()),
      };
      // The load was real: rows of every list were written while the followers paged.
      expect(expected.owners.length).toBe(ownersCreated.length);
      expect(ownersCreated.length).toBeGreaterThanOrEqual(MIN_ROWS);
      expect(expected.transactions.length).toBeGreaterThanOrEqual(authorized());
      expect(expected.webhookEvents.length).toBeGreaterThanOrEqual(traffic.accepted());

      const missed = Object.fromEntries(Object.entries(lists).map(([name, f]) => [name, expected[name as keyof typeof expected].filter((id) => !f.seen.has(id)).length]));
      const duplicates = Object.fromEntries(Object.entries(lists).map(([name, f]) => [name, f.duplicates]));
      const extra = Object.fromEntries(Object.entries(lists).map(([name, f]) => [name, f.seen.size - expected[name as keyof typeof expected].length]));
      expect({ missed, duplicates, extra }).toEqual({
        missed: { owners: 0, customers: 0, transactions: 0, webhookEvents: 0 },
        duplicates: { owners: 0, customers: 0, transactions: 0, webhookEvents: 0 },
        extra: { owners: 0, customers: 0, transactions: 0, webhookEvents: 0 },
      });
    });
  });
}
