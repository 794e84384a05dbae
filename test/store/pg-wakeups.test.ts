import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { engineAvailable } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

// Wake-ups between processes exist on PostgreSQL only (LISTEN/NOTIFY); SQLite's are in-process.
describe.skipIf(!engineAvailable('postgres'))('wake-ups on PostgreSQL', () => {
  let db: TestDatabase | undefined;
  const stores: Store[] = [];
  let admin: pg.Client | undefined;
  afterAll(async () => {
    for (const s of stores) await s.close();
    await admin?.end();
    await db?.drop();
  });

  it("a store's listener hears every other store's notifications but not its own (its commits wake its process in-process)", async () => {
    db = await createTestDatabase('postgres');
    const a = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
    const b = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
    stores.push(a, b);
    // A store's close ends its pool through the query builder, which opens it on first use.
    for (const s of stores) await sql`select 1`.execute(s.db);
    const channel = 'test_self_wakeups';
    // A bystander that hears everything, in commit order.
    admin = new pg.Client({ connectionString: db.databaseUrl });
    await admin.connect();
    const all: string[] = [];
    admin.on('notification', (m) => m.channel === channel && all.push(m.payload ?? ''));
    await admin.query(`LISTEN ${channel}`);
    const heard: (string | undefined)[] = [];
    const listener = a.wakeups!.listen(channel, (payload) => heard.push(payload));
    await until('the listener connected', async () => (listener.connected ? true : undefined), 10_000, 5);
    // Connecting calls it once, with no payload, for whatever was sent meanwhile.
    expect(heard).toEqual([undefined]);

    a.wakeups!.notify(channel);
    await until("a's notification sent", async () => (all.length === 1 ? true : undefined), 10_000, 5);
    b.wakeups!.notify(channel);
    await until("b's notification sent", async () => (all.length === 2 ? true : undefined), 10_000, 5);
    // A listening connection gets notifications in commit order: had a's own come through, it would be first.
    await until("a's listener woke", async () => (heard.length >= 2 ? true : undefined), 10_000, 5);
    const [fromA, fromB] = all;
    expect(fromA).not.toBe(fromB);
    expect(heard).toEqual([undefined, fromB]);
  });
});
