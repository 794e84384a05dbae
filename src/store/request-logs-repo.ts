// Written once per engine: PostgreSQL's pruning skips rows another process is deleting.
import { sql } from 'kysely';
import { afterPosition, keysetOrder } from './keyset.js';
import type { PageQuery } from './page.js';
import type { Executor, Queryable } from './store.js';
import type { RequestLogRow } from './tables/request-logs.js';

export interface RequestLogFilter {
  method?: string | undefined;
  /** Paths starting with this. */
  pathPrefix?: string | undefined;
  status?: number | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

/** Writes a batch of entries in one statement; an id already written (a retried flush) is skipped. */
export async function insertRequestLogs(db: Executor, rows: readonly RequestLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('request_logs')
    .values([...rows])
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** A page of the platform's log, newest first by (created_at, id), with the filter's count. */
export async function listRequestLogs(db: Executor, platformId: string, q: PageQuery, f: RequestLogFilter): Promise<{ rows: RequestLogRow[]; total: number }> {
  let filtered = db.selectFrom('request_logs').where('platform_id', '=', platformId);
  if (f.method !== undefined) filtered = filtered.where('method', '=', f.method);
  if (f.pathPrefix !== undefined) filtered = filtered.where(sql<string>`substr(path, 1, ${f.pathPrefix.length})`, '=', f.pathPrefix);
  if (f.status !== undefined) filtered = filtered.where('status', '=', f.status);
  if (f.from !== undefined) filtered = filtered.where('created_at', '>=', f.from);
  if (f.to !== undefined) filtered = filtered.where('created_at', '<=', f.to);
  const page = q.after ? filtered.where(afterPosition(q.after, undefined, 'desc', 'created_at')) : filtered;
  const rows = await keysetOrder(page.selectAll(), 'desc', undefined, 'created_at').limit(q.limit + 1).execute();
  const counted = await filtered.select(sql<number | string>`count(*)`.as('total')).executeTakeFirstOrThrow();
  return { rows, total: Number(counted.total) };
}

export async function findRequestLog(db: Executor, platformId: string, id: string): Promise<RequestLogRow | undefined> {
  return db.selectFrom('request_logs').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

/** Deletes up to `limit` entries older than `before` (epoch ms); returns how many. */
export async function deleteRequestLogsBefore(on: Queryable, before: number, limit: number): Promise<number> {
  const { db, engine } = on;
  let old = db.selectFrom('request_logs').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit);
  if (engine === 'postgres') old = old.modifyEnd(sql`for update skip locked`);
  const r = await db.deleteFrom('request_logs').where('id', 'in', old).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The creation time of the newest entry past the `keep` newest (undefined when there are no more than `keep`): older ones go. */
export async function requestLogCutoff(db: Executor, keep: number): Promise<number | undefined> {
  const row = await db.selectFrom('request_logs').select('created_at').orderBy('created_at', 'desc').offset(keep).limit(1).executeTakeFirst();
  return row === undefined ? undefined : Number(row.created_at);
}
