import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { PreparedRead } from '../../src/store/prepared.js';
import { insertPlatform } from '../../src/store/tokens-repo.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { engineAvailable } from '../helpers/test-app.js';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`store.read [${engine}]`, () => {
    let db: TestDatabase;
    let store: Store;
    const nameOf = (id: string) => store.read(sql<{ name: string }>`select name from platforms where id = ${id}`.compile(store.db));

    beforeAll(async () => {
      db = await createTestDatabase(engine);
      store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      await migrateToLatest(store);
      for (let i = 0; i < 50; i++) await insertPlatform(store.db, { id: `Platform:read-${i}`, name: `p${i}`, created_at: i });
    });
    afterAll(async () => {
      await store.close();
      await db.drop();
    });

    it('answers many reads asked for at once, each with its own rows', async () => {
      const ids = Array.from({ length: 50 }, (_, i) => i).reverse();
      const rows = await Promise.all(ids.map((i) => nameOf(`Platform:read-${i}`)));
      expect(rows).toEqual(ids.map((i) => [{ name: `p${i}` }]));
    });

    it('fails only the read that fails, not the others asked for with it', async () => {
      const results = await Promise.allSettled([
        nameOf('Platform:read-1'),
        store.read(sql`select no_such_column from platforms`.compile(store.db)),
        nameOf('Platform:read-2'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[2] as PromiseFulfilledResult<unknown>).value).toEqual([{ name: 'p2' }]);
      // And the next reads are unaffected.
      expect(await nameOf('Platform:read-3')).toEqual([{ name: 'p3' }]);
    });

    it('sees every commit made before the read was asked for, and nothing still uncommitted', async () => {
      for (let i = 0; i < 20; i++) {
        const id = `Platform:fresh-${i}`;
        let during: { name: string }[] | undefined;
        await store.db.transaction().execute(async (trx) => {
          await insertPlatform(trx, { id, name: `fresh${i}`, created_at: 1000 + i });
          during = await nameOf(id);
        });
        expect(during).toEqual([]);
        expect(await nameOf(id)).toEqual([{ name: `fresh${i}` }]);
      }
    });

    if (engine === 'sqlite') it('runs the reads asked for in one turn at its end, so they see a commit made later in that turn', async () => {
      for (let i = 0; i < 20; i++) {
        const id = `Platform:same-turn-${i}`;
        const asked = nameOf(id);
        // better-sqlite3 commits synchronously: the insert is done before the turn ends.
        await insertPlatform(store.db, { id, name: `same-turn${i}`, created_at: 2000 + i });
        expect(await asked).toEqual([{ name: `same-turn${i}` }]);
      }
    });
  });
}

describe('store.read [sqlite] at close', () => {
  it('answers the reads still waiting for the end of the turn, and refuses reads after', async () => {
    const db = await createTestDatabase('sqlite');
    const store = openStore({ dataDir: db.dataDir });
    try {
      await migrateToLatest(store);
      await insertPlatform(store.db, { id: 'Platform:close', name: 'closing', created_at: 1 });
      const query = sql<{ name: string }>`select name from platforms where id = ${'Platform:close'}`.compile(store.db);
      const pending = store.read(query);
      await store.close();
      expect(await pending).toEqual([{ name: 'closing' }]);
      await expect(store.read(query)).rejects.toThrow('closed');
    } finally {
      await db.drop();
    }
  });
});

describe.skipIf(!engineAvailable('postgres'))('store.read [postgres]: prepared statements', () => {
  it('a prepared statement whose result columns a migration changed runs again, unnamed: the query builder\'s and a hot read', async () => {
    const db = await createTestDatabase('postgres');
    // One connection, so both statements are prepared on the session whose plans the migration invalidates.
    const store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir, poolSize: 1 });
    const other = new pg.Client({ connectionString: db.databaseUrl });
    try {
      await migrateToLatest(store);
      await insertPlatform(store.db, { id: 'Platform:changing', name: 'changing', created_at: 1 });
      const built = async () => (await sql<Record<string, unknown>>`select * from platforms where id = ${'Platform:changing'}`.execute(store.db)).rows[0];
      const hot = new PreparedRead(store, (d, a: { id: string }) => d.selectFrom('platforms').selectAll().where('id', '=', a.id).compile(), { id: '\u0000id' });
      const hotRead = () => hot.first({ id: 'Platform:changing' });
      expect(await built()).not.toHaveProperty('added_later');
      expect(await hotRead()).not.toHaveProperty('added_later');
      const prepared = await sql<{ name: string }>`select name from pg_prepared_statements where statement like 'select * from%'`.execute(store.db);
      expect(prepared.rows.map((r) => r.name.split('_')[0]).sort()).toEqual(['q', 'read']);
      // As a newer process's migration would: in another session, under this process's prepared statements.
      await other.connect();
      await other.query('alter table platforms add column added_later text');
      for (let i = 0; i < 2; i++) {
        expect(await built()).toHaveProperty('added_later', null);
        expect(await hotRead()).toHaveProperty('added_later', null);
      }
    } finally {
      await other.end();
      await store.close();
      await db.drop();
    }
  });

  it('parses and plans a read once per connection: it runs as a named prepared statement', async () => {
    const db = await createTestDatabase('postgres');
    // One connection, so the session that prepared the read is the one asked about.
    const store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir, poolSize: 1 });
    try {
      await migrateToLatest(store);
      await insertPlatform(store.db, { id: 'Platform:prepared', name: 'prepared', created_at: 1 });
      const query = sql<{ name: string }>`select name from platforms where id = ${'Platform:prepared'}`.compile(store.db);
      expect(await store.read(query)).toEqual([{ name: 'prepared' }]);
      expect(await store.read({ ...query, parameters: ['Platform:none'] })).toEqual([]);
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(store.db);
      expect(prepared.rows.filter((r) => r.name.startsWith('read_'))).toEqual([{ name: expect.stringMatching(/^read_[0-9a-f]{24}$/), statement: query.sql }]);
      // The query builder's parameterized statements are prepared too (the platform's insert above).
      const insert = prepared.rows.find((r) => r.statement.startsWith('insert into "platforms"'));
      expect(insert?.name).toMatch(/^q_[0-9a-f]{24}$/);
      // Statements without parameters run as they are (this very query is not among them).
      expect(prepared.rows.some((r) => r.statement.includes('pg_prepared_statements'))).toBe(false);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
