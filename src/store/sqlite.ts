import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Database } from './database.js';
import { ImmediateSqliteDialect } from './sqlite-dialect.js';
import { SqliteReadBatch } from './sqlite-read-batch.js';
import { StatementCache } from './statement-cache.js';
import { sharedStore } from './shared-store.js';
import type { Store } from './store.js';

export const SQLITE_FILE = 'payments.sqlite';

function tune(conn: SqliteDatabase.Database): void {
  conn.pragma('busy_timeout = 10000');
  conn.pragma('cache_size = -65536');
  conn.pragma('mmap_size = 1073741824');
}

/** The SQLite file in `dataDir`: one connection for Kysely (writes, transactions) and one read-only connection for Store.read. */
export function openSqlite(dataDir: string, synchronous: 'FULL' | 'NORMAL' = 'FULL'): Store {
  mkdirSync(dataDir, { recursive: true });
  const writer = new SqliteDatabase(join(dataDir, SQLITE_FILE));
  writer.pragma('journal_mode = WAL');
  // FULL syncs the WAL at every commit, so an acknowledged write survives a power loss; NORMAL
  // (opt-in) survives a process crash, but an OS crash or power loss can lose the last commits.
  writer.pragma(`synchronous = ${synchronous}`);
  writer.pragma('foreign_keys = ON');
  tune(writer);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: new StatementCache(writer) }) });
  // Opened on first use: the file and its WAL index exist by then.
  let reader: StatementCache | undefined;
  let closed = false;
  const batch = new SqliteReadBatch(() => {
    if (closed) throw new Error('the store is closed');
    if (!reader) {
      const conn = new SqliteDatabase(join(dataDir, SQLITE_FILE), { readonly: true });
      tune(conn);
      reader = new StatementCache(conn);
    }
    return reader;
  });
  return sharedStore(db, 'sqlite', (query) => batch.read(query), async () => {
    batch.flush();
    closed = true;
    reader?.close();
    await db.destroy();
  });
}
