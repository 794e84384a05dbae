import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteAdapter, SqliteDialect, type CompiledQuery, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A handle that can run queries: the database itself or an open transaction. */
export type Executor = Db | Trx;

export interface Store {
  db: Db;
  engine: Engine;
  /**
   * Runs a compiled read outside any transaction, for hot paths. On SQLite it uses a second,
   * read-only connection: it sees exactly the committed data and never queues behind a writer's
   * open transaction. On PostgreSQL it is a pool query.
   */
  read<R>(query: CompiledQuery<R>): Promise<R[]>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL pool size per process. */
  poolSize?: number;
}

export const SQLITE_FILE = 'payments.sqlite';

export function openStore(opts: StoreOptions): Store {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10) : openSqlite(opts.dataDir);
}

function openSqlite(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  const raw = new SqliteDatabase(join(dataDir, SQLITE_FILE));
  raw.pragma('journal_mode = WAL');
  // NORMAL in WAL mode survives a process crash; only an OS crash can lose the last commits.
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 10000');
  raw.pragma('foreign_keys = ON');
  tune(raw);
  const db = new Kysely<Database>({ dialect: new TransactionalDdlSqliteDialect({ database: withStatementCache(raw) }) });
  // Opened on first use: the file and its WAL index exist by then.
  let reader: ReturnType<typeof withStatementCache> | undefined;
  const read = async <R>(query: CompiledQuery<R>): Promise<R[]> => {
    if (!reader) {
      const conn = new SqliteDatabase(join(dataDir, SQLITE_FILE), { readonly: true });
      conn.pragma('busy_timeout = 10000');
      tune(conn);
      reader = withStatementCache(conn);
    }
    return reader.prepare(query.sql).all(query.parameters as unknown[]) as R[];
  };
  return {
    db,
    engine: 'sqlite',
    read,
    close: async () => {
      reader?.close();
      await db.destroy();
    },
  };
}

function tune(conn: SqliteDatabase.Database): void {
  conn.pragma('cache_size = -65536');
  conn.pragma('mmap_size = 1073741824');
}

/** SQLite runs DDL inside transactions; saying so makes Kysely migrate in one BEGIN IMMEDIATE, which serializes processes. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter() {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * Kysely prepares every statement anew; caching them by SQL text saves most of a point query's cost.
 * Transactions begin IMMEDIATE so a second process (the CLI, a restarted server) waits on the
 * busy timeout instead of failing a read-then-write transaction with SQLITE_BUSY.
 */
function withStatementCache(raw: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const MAX = 1000;
  return {
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = raw.prepare(sql === 'begin' ? 'begin immediate' : sql);
        if (cache.size >= MAX) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      raw.close();
    },
  };
}

function openPostgres(url: string, max: number): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types: {
      // int8 columns hold millisecond times and counts, all well inside Number's safe range.
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const read = async <R>(query: CompiledQuery<R>): Promise<R[]> =>
    (await pool.query({ text: query.sql, values: query.parameters as unknown[] })).rows as R[];
  return { db, engine: 'postgres', read, close: () => db.destroy() };
}
