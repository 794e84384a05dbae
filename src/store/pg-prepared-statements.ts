import { createHash } from 'node:crypto';
import type { Compilable, CompiledQuery, QueryResult, RawBuilder } from 'kysely';
import type pg from 'pg';
import type { Executor } from './store.js';

/** PostgreSQL refuses a prepared statement whose result columns changed under it (a migration by a newer process). */
const CACHED_PLAN_CHANGED = '0A000';

/** Where a statement runs: the pool (any connection) or one client of it. */
export interface Queryable {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

function isCachedPlanChanged(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === CACHED_PLAN_CHANGED && String(e.message).includes('cached plan must not change result type');
}

/**
 * Server-side prepared statements named by their text (the prefix and a digest of it), so each is
 * parsed and planned once per connection. At most `max` texts are named; later ones run unnamed.
 * A text whose prepared form PostgreSQL refuses because its result columns changed runs again
 * unnamed, and unnamed from then on on every connection.
 */
export class PreparedStatements {
  // A cap, not an eviction (so a Map, not an LRU): forgetting a name frees nothing its connections prepared.
  private readonly names = new Map<string, string>();

  constructor(
    private readonly prefix: string,
    private readonly max: number,
  ) {}

  async query<R extends pg.QueryResultRow>(on: Queryable, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const name = this.nameOf(text);
    if (name === undefined) return on.query<R>({ text, values });
    try {
      return await on.query<R>({ name, text, values });
    } catch (err) {
      if (!isCachedPlanChanged(err)) throw err;
      // Its prepared form is stale on some connections; the empty name marks it unnamed for good.
      this.names.set(text, '');
      return on.query<R>({ text, values });
    }
  }

  private nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.max) {
      name = `${this.prefix}_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      this.names.set(text, name);
    }
    return name || undefined;
  }
}

const plannedEachRun = new WeakSet<CompiledQuery>();

/**
 * Runs a statement as an unnamed one on PostgreSQL, planned for each run with its table's size
 * then: for statements on the jobs table, which grows from empty within seconds, that are cheap to
 * plan (ending jobs). A named statement keeps the generic plan PostgreSQL settles on after five
 * runs, and on a new database under load that was made while the table held a few rows: a
 * sequential scan of it, until an ANALYZE (autovacuum's, a minute or more later; see analyzeJobs).
 * Counted with pg_stat_statements (bench webhooks, 300/s, a new database): recording deliveries
 * 3.0 ms and 771 buffers a run as a named statement, 0.65 ms and 196 planned each run (0.35 ms of
 * planning). Planning every statement so (plan_cache_mode) cost more planning than it saved.
 */
export function executePlannedEachRun<R>(db: Executor, query: Compilable<R> | RawBuilder<R>): Promise<QueryResult<R>> {
  const compiled = 'isRawBuilder' in query ? query.compile(db) : query.compile();
  plannedEachRun.add(compiled);
  return db.executeQuery(compiled);
}

export function isPlannedEachRun(query: CompiledQuery): boolean {
  return plannedEachRun.has(query);
}
