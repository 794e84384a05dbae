import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';
import type { WakeupListener } from './pg-wakeups.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';
import type { UnitOfWork } from './unit-of-work.js';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A handle that can run queries: the database itself or an open transaction. */
export type Executor = Db | Trx;

/**
 * Where a repository runs statements whose SQL differs per engine: the Store (outside any unit of
 * work, each statement committed on its own) or a UnitOfWork. Both know their engine.
 */
export interface Queryable {
  readonly db: Executor;
  readonly engine: Engine;
}

export interface Store extends Queryable {
  /** The database, outside any unit of work: reads, and statements that commit on their own. */
  readonly db: Db;
  readonly engine: Engine;
  /**
   * Runs `fn` in a unit of work: `within`, when given (the request's under an Idempotency-Key, so
   * its work commits with the stored answer), else one of its own, committed when `fn` resolves and
   * rolled back when it throws.
   */
  transaction<T>(fn: (uow: UnitOfWork) => Promise<T>, within?: UnitOfWork): Promise<T>;
  /**
   * Begins a unit of work that the caller commits or rolls back: only for the idempotent request
   * (its work and its stored answer commit together) and the worker's batch (many jobs, one
   * commit). Everything else uses `transaction`.
   */
  begin(): Promise<UnitOfWork>;
  /** Runs `listener` after every commit that enqueued jobs, once per commit; answers the function that stops it. */
  onJobsEnqueued(listener: () => void): () => void;
  /** Jobs were enqueued by a statement outside any unit of work (committed as it returned): the listeners run now. */
  jobsEnqueued(): void;
  /**
   * Runs a compiled read outside any write transaction, for hot paths; it sees every commit made
   * before it was asked for. On SQLite it uses a second, read-only connection, so it never queues
   * behind a writer's open transaction, and the reads asked for in one turn of the event loop run
   * together at its end in one read transaction. On PostgreSQL it is a pool query.
   */
  read<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * Wake-ups between processes, on PostgreSQL only (LISTEN/NOTIFY): `notify` tells every
   * listener of the channel but this store's own (its commits wake this process in-process), once
   * the caller's commit is done; `listen` holds one dedicated
   * connection, reconnecting if it drops. Absent on SQLite.
   */
  wakeups?: {
    notify(channel: string): void;
    listen(channel: string, onWake: (payload?: string) => void, onError?: (err: unknown) => void): WakeupListener;
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
