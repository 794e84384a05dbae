import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';
import type { WakeupListener } from './pg-wakeups.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';
import type { HeldTransaction } from './scoped-transaction.js';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A handle that can run queries: the database itself or an open transaction. */
export type Executor = Db | Trx;

export interface Store {
  /** The database, or the transaction scoped to the current async context (see `transaction`). */
  readonly db: Db;
  /** Runs `fn` in a transaction, joining the one scoped to this async context if there is one. */
  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T>;
  /** Runs `fn` once this async context's writes are committed (see scoped-transaction.ts). */
  afterCommit(fn: () => void): void;
  /** Opens a transaction on the database (never joining one) that the caller scopes and ends. */
  hold(): Promise<HeldTransaction>;
  engine: Engine;
  /**
   * Runs a compiled read outside any write transaction, for hot paths; it sees every commit made
   * before it was asked for. On SQLite it uses a second, read-only connection, so it never queues
   * behind a writer's open transaction, and the reads asked for in one turn of the event loop run
   * together at its end in one read transaction. On PostgreSQL it is a pool query.
   */
  read<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * Wake-ups between processes, on PostgreSQL only (LISTEN/NOTIFY): `notify` tells every
   * listener of the channel, once the caller's commit is done; `listen` holds one dedicated
   * connection, reconnecting if it drops. Absent on SQLite.
   */
  wakeups?: {
    notify(channel: string): void;
    listen(channel: string, onWake: () => void, onError?: (err: unknown) => void): WakeupListener;
  };
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL pool size per process. */
  poolSize?: number;
  /** SQLite's commit durability: FULL (the default) survives a power loss, NORMAL a process crash. */
  sqliteSynchronous?: 'FULL' | 'NORMAL';
}

/** PostgreSQL when a URL is given, otherwise the SQLite file in the data directory. */
export function openStore(opts: StoreOptions): Store {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10) : openSqlite(opts.dataDir, opts.sqliteSynchronous ?? 'FULL');
}
