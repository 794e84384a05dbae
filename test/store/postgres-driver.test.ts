import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrateToLatest } from '../../src/store/migrator.js';
import { executePlannedEachRun, PreparedStatements } from '../../src/store/pg-prepared-statements.js';
import { openStore, type Store } from '../../src/store/store.js';
import { insertPlatform } from '../../src/store/tokens-repo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { engineAvailable } from '../helpers/test-app.js';

// PostgreSQL only: named prepared statements are this engine's (SQLite has its StatementCache).
describe.skipIf(!engineAvailable('postgres'))('PostgreSQL driver: the query builder\'s statements', () => {
  let db: TestDatabase;
  let store: Store;
  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(store.db)).rows;
  const settings = async (prefix: string) =>
    (await store.db.selectFrom('server_settings').select(['key', 'value']).where('key', 'like', `${prefix}%`).orderBy('key').execute()).map((r) => [r.key, r.value]);
  const names = (from: string) => store.db.selectFrom('platforms').select('name').where('id', 'like', `${from}%`).orderBy('id');

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    // One connection, so the session asked about is the one that ran the statements.
    store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir, poolSize: 1 });
    await migrateToLatest(store);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('sends a parameterized statement as a named prepared statement, prepared once per connection', async () => {
    await insertPlatform(store.db, { id: 'Platform:named-1', name: 'one', created_at: 1 });
    const query = store.db.selectFrom('platforms').select('name').where('id', '=', 'Platform:named-1');
    expect(await query.execute()).toEqual([{ name: 'one' }]);
    expect(await store.db.selectFrom('platforms').select('name').where('id', '=', 'Platform:none').execute()).toEqual([]);
    const text = query.compile().sql;
    expect((await prepared()).filter((r) => r.statement === text)).toEqual([{ name: expect.stringMatching(/^q_[0-9a-f]{24}$/), statement: text }]);
    // Without parameters a statement runs as it is: this very query, and transaction control.
    await store.db.transaction().execute((trx) => sql`select 1`.execute(trx));
    expect((await prepared()).filter((r) => !r.name.startsWith('q_') || /pg_prepared_statements|^(begin|commit)/.test(r.statement))).toEqual([]);
  });

  it('runs a statement of executePlannedEachRun unnamed, so that each run is planned for the table as it is then', async () => {
    const query = store.db.selectFrom('platforms').select('name').where('id', '=', 'Platform:named-1').where('name', '=', 'one');
    // More runs than the five after which PostgreSQL would settle on a generic plan for a named statement.
    for (let i = 0; i < 7; i++) expect((await executePlannedEachRun(store.db, query)).rows).toEqual([{ name: 'one' }]);
    expect((await prepared()).filter((r) => r.statement === query.compile().sql)).toEqual([]);
  });

  it("sends a unit of work's held-back writes (UnitOfWork.write) with its next statement in one round trip, BEGIN with the first", async () => {
    const queries = vi.spyOn(pg.Client.prototype, 'query');
    await store.transaction(async (uow) => {
      for (let i = 0; i < 5; i++) await uow.write(uow.db.insertInto('server_settings').values({ key: `trip:${i}`, value: 'x' }));
      await uow.write(sql`update server_settings set value = ${'y'} where key = ${'trip:0'}`);
      expect(queries).not.toHaveBeenCalled();
      // A read goes with them (BEGIN first), and sees them.
      expect((await uow.db.selectFrom('server_settings').select('value').where('key', 'like', 'trip:%').orderBy('key').execute()).map((r) => r.value)).toEqual(['y', 'x', 'x', 'x', 'x']);
      expect(queries).toHaveBeenCalledTimes(1);
      await uow.write(uow.db.insertInto('server_settings').values({ key: 'trip:5', value: 'z' }));
    });
    // The last write and COMMIT.
    expect(queries).toHaveBeenCalledTimes(2);
    expect(await settings('trip:')).toEqual([['trip:0', 'y'], ...[1, 2, 3, 4].map((i) => [`trip:${i}`, 'x']), ['trip:5', 'z']]);
  });

  it('a transaction none of which was sent is rolled back without a statement; one whose read failed rolls back', async () => {
    const queries = vi.spyOn(pg.Client.prototype, 'query');
    await expect(
      store.transaction(async (uow) => {
        await uow.write(uow.db.insertInto('server_settings').values({ key: 'unsent:a', value: 'x' }));
        throw new Error('before anything was sent');
      }),
    ).rejects.toThrow('before anything was sent');
    expect(queries).not.toHaveBeenCalled();
    await expect(
      store.transaction(async (uow) => {
        await uow.write(uow.db.insertInto('server_settings').values({ key: 'unsent:b', value: 'x' }));
        await sql`select 1 / 0`.execute(uow.db);
      }),
    ).rejects.toThrow(/division by zero/);
    // The read with BEGIN and the write, then ROLLBACK.
    expect(queries).toHaveBeenCalledTimes(2);
    expect(await settings('unsent:')).toEqual([]);
    // The connection went back to the pool clean: the next transaction commits as usual.
    await store.transaction((uow) => uow.write(uow.db.insertInto('server_settings').values({ key: 'unsent:c', value: 'x' })));
    expect(await settings('unsent:')).toEqual([['unsent:c', 'x']]);
  });

  it('runs transactions as Kysely does: a commit keeps, a rollback and a savepoint rolled back to drop', async () => {
    await expect(
      store.db.transaction().execute(async (trx) => {
        await insertPlatform(trx, { id: 'Platform:tx-rolled-back', name: 'gone', created_at: 1 });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const trx = await store.db.startTransaction().execute();
    await insertPlatform(trx, { id: 'Platform:tx-kept', name: 'kept', created_at: 1 });
    const savepoint = await trx.savepoint('before_dropped').execute();
    await insertPlatform(savepoint, { id: 'Platform:tx-dropped', name: 'dropped', created_at: 1 });
    await savepoint.rollbackToSavepoint('before_dropped').execute();
    await trx.commit().execute();
    expect(await names('Platform:tx-').execute()).toEqual([{ name: 'kept' }]);
  });

  it('reports the rows an insert, update or delete touched, and reads int8 as numbers', async () => {
    const update = await store.db.updateTable('platforms').set({ created_at: 2 ** 53 - 1 }).where('id', 'like', 'Platform:%').executeTakeFirstOrThrow();
    const count = (await store.db.selectFrom('platforms').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    expect(count).toBeGreaterThan(1);
    expect(update.numUpdatedRows).toBe(BigInt(count));
    expect(await store.db.selectFrom('platforms').select('created_at').where('id', '=', 'Platform:named-1').execute()).toEqual([{ created_at: 2 ** 53 - 1 }]);
    const deleted = await store.db.deleteFrom('platforms').where('id', '=', 'Platform:tx-kept').executeTakeFirstOrThrow();
    expect(deleted.numDeletedRows).toBe(1n);
  });

  it('refuses to stream with a clear error, and gives its connection back', async () => {
    const stream = async () => {
      for await (const row of names('Platform:').stream()) expect(row).toBeUndefined();
    };
    await expect(stream()).rejects.toThrow('streaming is not supported on PostgreSQL');
    expect(await names('Platform:named-').execute()).toEqual([{ name: 'one' }]);
  });
});

describe.skipIf(!engineAvailable('postgres'))('PreparedStatements', () => {
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  it('names at most its cap of texts; the later ones run unnamed', async () => {
    const statements = new PreparedStatements('capped', 2);
    for (const n of [1, 2, 3, 1, 3]) expect((await statements.query(client, `select $1::int + ${n} as n`, [10])).rows).toEqual([{ n: 10 + n }]);
    const { rows } = await client.query<{ statement: string }>(`select statement from pg_prepared_statements where name like 'capped\\_%' order by statement`);
    expect(rows.map((r) => r.statement)).toEqual(['select $1::int + 1 as n', 'select $1::int + 2 as n']);
  });
});
