// Written once per engine: PostgreSQL's deletes skip rows another process holds.
import { sql } from 'kysely';
import { dbClockMs } from './jobs-repo.js';
import type { Queryable } from './store.js';

/**
 * Deletes up to `limit` finished jobs (done or failed) that finished more than `retentionMs` ago
 * by the database's clock; returns how many. A finished job's run_at is when it finished, so the
 * (state, run_at) index finds them. PostgreSQL skips rows another process is deleting.
 */
export async function deleteFinishedJobs(on: Queryable, retentionMs: number, limit: number): Promise<number> {
  const { db, engine } = on;
  let old = db
    .selectFrom('jobs')
    .select('id')
    .where('state', 'in', ['done', 'failed'])
    .where('run_at', '<', sql<number>`${dbClockMs(engine)} - ${retentionMs}`)
    .limit(limit);
  if (engine === 'postgres') old = old.modifyEnd(sql`for update skip locked`);
  const r = await db.deleteFrom('jobs').where('id', 'in', old).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Deletes up to `limit` webhook attempts whose id sorts before `beforeId`; returns how many.
 * Attempt ids sort by creation time, so the primary key finds the old ones.
 */
export async function deleteAttemptsBefore(on: Queryable, beforeId: string, limit: number): Promise<number> {
  const { db, engine } = on;
  let old = db.selectFrom('webhook_attempts').select('id').where('id', '<', beforeId).orderBy('id').limit(limit);
  if (engine === 'postgres') old = old.modifyEnd(sql`for update skip locked`);
  const r = await db.deleteFrom('webhook_attempts').where('id', 'in', old).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * PostgreSQL: the tables whose rows every job run rewrites. A job is inserted, leased and ended; a
 * landing rewrites its card transaction, its operation and the account's balance row; an event
 * is placed on its platform's list (the platform's row) and then delivered.
 */
const CHURNING_TABLES = ['jobs', 'webhook_events', 'card_transactions', 'card_operations', 'payment_transactions', 'internal_accounts', 'platforms'];

/**
 * PostgreSQL: vacuums those of the tables job runs rewrite (CHURNING_TABLES) that hold at least
 * `minDead` old row versions, most first, skipping any another session (autovacuum, another
 * process) is vacuuming; answers the tables vacuumed. Every old version stays in the indexes until
 * a vacuum, and each claim, landing and list placement steps over them; autovacuum looks at a
 * database once a minute at most. Vacuuming every such table at once took 1-2.5 s under load
 * (bench transfers, 200/s) and so ran seldom; the tables with few old versions are left for later.
 * Never truncating a table: that takes a lock every statement on it would wait for. SQLite
 * rewrites rows in place: nothing to do there.
 */
export async function vacuumChurningTables(on: Queryable, minDead: number): Promise<string[]> {
  if (on.engine !== 'postgres') return [];
  const { rows } = await sql<{ relname: string }>`select relname from pg_stat_user_tables
    where schemaname = current_schema() and relname = any(${CHURNING_TABLES}::text[]) and n_dead_tup >= ${minDead}
    order by n_dead_tup desc`.execute(on.db);
  const tables = rows.map((r) => r.relname);
  if (tables.length > 0) await sql`vacuum (skip_locked, truncate false) ${sql.join(tables.map((t) => sql.table(t)))}`.execute(on.db);
  return tables;
}
