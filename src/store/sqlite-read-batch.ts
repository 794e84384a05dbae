import type { CompiledQuery } from 'kysely';
import type { StatementCache } from './statement-cache.js';

interface PendingRead {
  query: CompiledQuery<unknown>;
  resolve: (rows: unknown[]) => void;
  reject: (err: unknown) => void;
}

/**
 * Reads asked for during one turn of the event loop run together at its end, in one read
 * transaction: one snapshot and one set of file locks for the lot, and SQLite's code and pages
 * stay in the CPU caches from one statement to the next (at 64 connections on the owner list:
 * 9,100 -> 12,000-13,800 req/s, 111 -> 74-85 us of CPU per request). The snapshot is taken after
 * every read in the batch was asked for, so each sees every commit made before its request.
 */
export class SqliteReadBatch {
  private pending: PendingRead[] = [];

  /** `connection` opens (or returns) the read-only connection; it throws once the store is closed. */
  constructor(private readonly connection: () => StatementCache) {}

  read<R>(query: CompiledQuery<R>): Promise<R[]> {
    return new Promise<R[]>((resolve, reject) => {
      if (this.pending.push({ query, resolve: resolve as (rows: unknown[]) => void, reject }) === 1) setImmediate(this.flush);
    });
  }

  /** Runs every pending read now. */
  readonly flush = (): void => {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let conn: StatementCache;
    try {
      conn = this.connection();
      conn.prepare('begin deferred').run();
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    for (const p of batch) {
      try {
        p.resolve(conn.prepare(p.query.sql).all(p.query.parameters as unknown[]));
      } catch (err) {
        p.reject(err);
      }
    }
    try {
      conn.prepare('commit').run();
    } catch {
      // Ending a read transaction cannot lose anything; make sure the next batch can begin its own.
      try {
        if (conn.inTransaction) conn.prepare('rollback').run();
      } catch {
        // The connection is unusable; the next batch's begin reports it to its readers.
      }
    }
  };
}
