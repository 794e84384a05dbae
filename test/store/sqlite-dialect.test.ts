import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrator.js';
import { SQLITE_FILE } from '../../src/store/sqlite.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';

// SQLite only: PostgreSQL has no transaction modes of this kind.
describe('SQLite transactions', () => {
  let db: TestDatabase;
  let store: Store;
  let other: SqliteDatabase.Database;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    store = openStore({ dataDir: db.dataDir });
    await migrateToLatest(store);
    other = new SqliteDatabase(join(db.dataDir, SQLITE_FILE));
    other.pragma('busy_timeout = 0');
  });
  afterAll(async () => {
    other.close();
    await store.close();
    await db.drop();
  });

  it('begin IMMEDIATE: a transaction holds the write lock from its first statement, before it writes', async () => {
    let otherWrite: unknown;
    await store.db.transaction().execute(async (trx) => {
      await trx.selectFrom('platforms').select('id').execute();
      try {
        other.prepare('insert into platforms (id, name, created_at) values (?, ?, ?)').run('Platform:other', 'other', 1);
      } catch (err) {
        otherWrite = err;
      }
    });
    expect(otherWrite).toMatchObject({ code: 'SQLITE_BUSY' });
    other.prepare('insert into platforms (id, name, created_at) values (?, ?, ?)').run('Platform:after', 'after', 2);
  });

  it('commits with synchronous=FULL by default (a 202 survives a power loss), NORMAL when asked', async () => {
    const read = async (s: Store) => (await sql<{ synchronous: number }>`pragma synchronous`.execute(s.db)).rows[0]?.synchronous;
    expect(await read(store)).toBe(2);
    const normal = openStore({ dataDir: db.dataDir, sqliteSynchronous: 'NORMAL' });
    try {
      expect(await read(normal)).toBe(1);
    } finally {
      await normal.close();
    }
  });
});
