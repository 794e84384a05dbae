// Written once per engine: lockClockOffset and dueAuthorizations (row locks on PostgreSQL; SQLite has one writer).
import { sql } from 'kysely';
import { PreparedRead } from './prepared.js';
import type { Executor, Store } from './store.js';
import type { UnitOfWork } from './unit-of-work.js';

/** The platform's clock offset in ms (0 when never advanced); undefined for an unknown platform. */
export async function findClockOffset(db: Executor, platformId: string): Promise<number | undefined> {
  const row = await db.selectFrom('platforms').select('clock_offset_ms').where('id', '=', platformId).executeTakeFirst();
  return row && Number(row.clock_offset_ms ?? 0);
}

/** The platform's clock offset, compiled once: read outside any write transaction (on SQLite its read-only connection). */
export function clockOffsetQuery(store: Store) {
  return new PreparedRead(store, (db, a: { id: string }) => db.selectFrom('platforms').select('clock_offset_ms').where('id', '=', a.id).compile(), { id: '\u0000id' });
}

/** Reads the offset and, on PostgreSQL, locks the platform row until the caller commits: advances on one platform run one at a time. */
export async function lockClockOffset(uow: UnitOfWork, platformId: string): Promise<number | undefined> {
  let q = uow.db.selectFrom('platforms').select('clock_offset_ms').where('id', '=', platformId);
  if (uow.engine === 'postgres') q = q.modifyEnd(sql`for no key update`);
  const row = await q.executeTakeFirst();
  return row && Number(row.clock_offset_ms ?? 0);
}

/**
 * Sets the offset; on PostgreSQL also notifies `channel` inside the transaction, so every listening
 * process hears of it as the advance commits (advances are rare: the commit lock NOTIFY takes costs nothing here).
 */
export async function setClockOffset(uow: UnitOfWork, platformId: string, offsetMs: number, channel: string): Promise<void> {
  await uow.db.updateTable('platforms').set({ clock_offset_ms: offsetMs }).where('id', '=', platformId).execute();
  if (uow.engine === 'postgres') await sql`select pg_notify(${channel}, ${platformId})`.execute(uow.db);
}

/** Moves the real due time of the platform's queued clock-bound jobs to match its new offset (a job already past its time is due at once). */
export async function pullPlatformJobsForward(db: Executor, platformId: string, offsetMs: number): Promise<number> {
  const r = await db
    .updateTable('jobs')
    .set({ run_at: sql<number>`platform_due_at - ${offsetMs}` })
    .where('platform_id', '=', platformId)
    .where('state', '=', sql.lit('queued'))
    .where('platform_due_at', 'is not', null)
    .where(sql<boolean>`run_at > platform_due_at - ${offsetMs}`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** How many of the platform's clock-bound jobs due by `platformNow` are still queued. */
export async function countQueuedPlatformJobs(db: Executor, platformId: string, platformNow: number): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('platform_id', '=', platformId)
    .where('state', '=', sql.lit('queued'))
    .where('platform_due_at', '<=', platformNow)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Up to `limit` fully open authorizations (AUTHORIZED, nothing settled) of the platform whose
 * time-to-live ran out by `platformNow`: the platform's own TTL, else `defaultTtlMs`. On
 * PostgreSQL they are locked, skipping rows another expiry or landing holds.
 */
export async function dueAuthorizations(uow: UnitOfWork, a: { platformId: string; platformNow: number; defaultTtlMs: number; limit: number }): Promise<string[]> {
  const ttl = await uow.db.selectFrom('platform_webhook_config').select('sandbox_authorization_ttl_ms').where('platform_id', '=', a.platformId).executeTakeFirst();
  const cutoff = a.platformNow - Number(ttl?.sandbox_authorization_ttl_ms ?? a.defaultTtlMs);
  let q = uow.db
    .selectFrom('card_transactions')
    .select('id')
    .where('platform_id', '=', a.platformId)
    .where('status', '=', sql.lit('AUTHORIZED'))
    .where('authorized_at', '<=', cutoff)
    .where('settled_amount', '=', 0)
    .orderBy('authorized_at')
    .limit(a.limit);
  if (uow.engine === 'postgres') q = q.modifyEnd(sql`for no key update skip locked`);
  return (await q.execute()).map((r) => r.id);
}

/** Platforms with a fully open authorization whose time-to-live (its platform's, else `defaultTtlMs`) ran out on its platform's clock: where a sweep expires. */
export async function platformsWithDueAuthorizations(db: Executor, realNow: number, defaultTtlMs: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('card_transactions as t')
    .innerJoin('platforms as p', 'p.id', 't.platform_id')
    .leftJoin('platform_webhook_config as w', 'w.platform_id', 't.platform_id')
    .select('t.platform_id')
    .distinct()
    .where('t.status', '=', sql.lit('AUTHORIZED'))
    .where('t.settled_amount', '=', 0)
    .where(sql<boolean>`t.authorized_at <= ${realNow} + p.clock_offset_ms - coalesce(w.sandbox_authorization_ttl_ms, ${defaultTtlMs})`)
    .limit(limit)
    .execute();
  return rows.map((r) => r.platform_id);
}
