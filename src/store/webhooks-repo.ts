// Written once per engine: lockWebhookConfig and recordDeliveries.
import { sql, type RawBuilder, type Selectable } from 'kysely';
import { executePlannedEachRun } from './pg-prepared-statements.js';
import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import type { PageQuery } from './page.js';
import { rowsRelation } from './bulk.js';
import { endDoneJobs } from './jobs-repo.js';
import type { Executor, Queryable, Store } from './store.js';
import type { DeliveryState } from './tables/webhook-events.js';
import type { PlatformWebhookConfigRow, WebhookAttemptRow } from './tables/webhooks.js';
import type { UnitOfWork } from './unit-of-work.js';

const webhookConfigOf = (db: Executor, platformId: string) => db.selectFrom('platform_webhook_config').selectAll().where('platform_id', '=', platformId);

/** The platform's config row. */
export async function findWebhookConfig(db: Executor, platformId: string): Promise<PlatformWebhookConfigRow | undefined> {
  return webhookConfigOf(db, platformId).executeTakeFirst();
}

/** findWebhookConfig, to merge a change into it: on PostgreSQL the row stays locked until the unit of work ends. */
export async function lockWebhookConfig(uow: UnitOfWork, platformId: string): Promise<PlatformWebhookConfigRow | undefined> {
  const q = webhookConfigOf(uow.db, platformId);
  return (uow.engine === 'postgres' ? q.forNoKeyUpdate() : q).executeTakeFirst();
}

/** Gives a row made before its platform had a signing key pair one; concurrent callers agree on the first. */
export async function setSigningKeysIfMissing(db: Executor, platformId: string, privateKey: string, publicKey: string): Promise<void> {
  await db
    .updateTable('platform_webhook_config')
    .set({ signing_private_key: privateKey, signing_public_key: publicKey })
    .where('platform_id', '=', platformId)
    .where('signing_private_key', 'is', null)
    .execute();
}

/** Creates the platform's config unless it exists; concurrent first reads agree on one secret. */
export async function insertWebhookConfigIfMissing(db: Executor, row: PlatformWebhookConfigRow): Promise<void> {
  await db
    .insertInto('platform_webhook_config')
    .values(row)
    .onConflict((oc) => oc.column('platform_id').doNothing())
    .execute();
}

export async function updateWebhookConfig(
  db: Executor,
  platformId: string,
  patch: Partial<Omit<PlatformWebhookConfigRow, 'platform_id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('platform_webhook_config').set(patch).where('platform_id', '=', platformId).execute();
}

/** Everything the delivery attempts of these events need, in one read: each event and where and how to send it (any platform's: the caller checks). */
export async function findEventsForDelivery(db: Executor, eventIds: readonly string[]) {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('webhook_events as e')
    .leftJoin('platform_webhook_config as c', 'c.platform_id', 'e.platform_id')
    .select([
      'e.id',
      'e.platform_id',
      'e.body',
      'e.delivery_state',
      'e.attempt_count',
      'c.webhook_endpoint',
      'c.secret',
      'c.previous_secret',
      'c.previous_secret_expires_at',
      'c.signing_private_key',
    ])
    .where('e.id', 'in', eventIds)
    .execute();
}

export type EventForDelivery = Awaited<ReturnType<typeof findEventsForDelivery>>[number];

export async function insertWebhookAttempt(db: Executor, row: WebhookAttemptRow): Promise<void> {
  await insertWebhookAttempts(db, [row]);
}

export async function insertWebhookAttempts(db: Executor, rows: readonly WebhookAttemptRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_attempts').values([...rows]).execute();
}

/**
 * recordEventAttempt for many successful deliveries: each event DELIVERED, its attempts counted.
 * One statement on PostgreSQL (a round trip saved per delivery); one per event on SQLite.
 */
export async function recordDeliveries(on: Queryable, deliveries: readonly { eventId: string; at: number }[]): Promise<void> {
  const { db, engine } = on;
  const byEvent = new Map<string, { id: string; n: number; at: number }>();
  for (const { eventId, at } of deliveries) {
    const seen = byEvent.get(eventId);
    if (seen) Object.assign(seen, { n: seen.n + 1, at: Math.max(seen.at, at) });
    else byEvent.set(eventId, { id: eventId, n: 1, at });
  }
  if (byEvent.size === 0) return;
  if (engine === 'sqlite') {
    for (const { eventId, at } of deliveries) await recordEventAttempt(db, eventId, { state: 'DELIVERED', at, nextAttemptAt: null });
    return;
  }
  await markDelivered(rowsRelation({ id: 'text', n: 'integer', at: 'bigint' }, [...byEvent.values()])).execute(db);
}

/** PostgreSQL: the events of relation `v` (id, n, at) DELIVERED at `at`, each with `n` attempts more. */
function markDelivered(deliveries: RawBuilder<unknown>) {
  return sql`update webhook_events as e
    set attempt_count = e.attempt_count + v.n, last_attempt_at = v.at, updated_at = v.at,
        delivery_state = 'DELIVERED', delivered_at = v.at, next_attempt_at = null
    from ${deliveries}
    where e.id = v.id`;
}

/**
 * PostgreSQL: accepted deliveries recorded and their jobs ended in one statement, in no
 * transaction of the caller's (one round trip where a unit of work took five: begin, the jobs,
 * the attempts, the events, commit). Only the deliveries whose job `owner` still holds (by its
 * claim's attempt count) are recorded; answers their job ids. Undefined on SQLite, whose
 * statements cost no round trip: the caller writes them in a unit of work.
 */
export async function recordDeliveredJobs(
  on: Pick<Store, 'db' | 'engine'>,
  owner: string,
  runs: readonly { jobId: string; attempts: number; attempt: WebhookAttemptRow; at: number }[],
): Promise<Set<string> | undefined> {
  if (on.engine !== 'postgres') return undefined;
  if (runs.length === 0) return new Set();
  const attempts = rowsRelation(
    { job_id: 'text', id: 'text', event_id: 'text', platform_id: 'text', attempted_at: 'bigint', url: 'text', response_status: 'integer', latency_ms: 'integer', error: 'text', response_excerpt: 'text', at: 'bigint' },
    runs.map((r) => ({ ...r.attempt, job_id: r.jobId, at: r.at })),
  );
  const { rows } = await executePlannedEachRun(on.db, sql<{ id: string }>`with
    held as (${endDoneJobs(owner, runs.map((r) => ({ id: r.jobId, attempts: r.attempts })))}),
    d as (select v.* from ${attempts} where v.job_id in (select id from held)),
    a as (
      insert into webhook_attempts (id, event_id, platform_id, attempted_at, url, response_status, latency_ms, error, response_excerpt)
      select id, event_id, platform_id, attempted_at, url, response_status, latency_ms, error, response_excerpt from d),
    e as (${markDelivered(sql`(select event_id as id, count(*)::integer as n, max(at) as at from d group by event_id) as v`)})
    select id from held`);
  return new Set(rows.map((r) => r.id));
}

/**
 * Records one delivery attempt's outcome on its event. A failure never undoes DELIVERED: it can
 * only come from a stale delivery that a redelivery already beat.
 */
export async function recordEventAttempt(
  db: Executor,
  eventId: string,
  u: { state: DeliveryState; at: number; nextAttemptAt: number | null },
): Promise<void> {
  await db
    .updateTable('webhook_events')
    .set((eb) => ({
      attempt_count: eb('attempt_count', '+', 1),
      last_attempt_at: u.at,
      updated_at: u.at,
      ...(u.state === 'DELIVERED'
        ? { delivery_state: 'DELIVERED' as const, delivered_at: u.at, next_attempt_at: null }
        : {
            // Branches name the column, so PostgreSQL types the parameter from it.
            delivery_state: eb.case().when('delivery_state', '=', 'DELIVERED').then(eb.ref('delivery_state')).else(u.state).end(),
            next_attempt_at: eb.case().when('delivery_state', '=', 'DELIVERED').then(eb.ref('next_attempt_at')).else(u.nextAttemptAt).end(),
          }),
    }))
    .where('id', '=', eventId)
    .execute();
}

export async function setEventState(db: Executor, eventId: string, state: DeliveryState, now: number): Promise<void> {
  await db.updateTable('webhook_events').set({ delivery_state: state, next_attempt_at: state === 'PENDING' ? now : null, updated_at: now }).where('id', '=', eventId).execute();
}

export interface EventFilter {
  type?: string | undefined;
  deliveryState?: DeliveryState | undefined;
}

export async function listWebhookEvents(db: Executor, platformId: string, q: PageQuery, f: EventFilter) {
  let base = db.selectFrom('webhook_events').where('platform_id', '=', platformId);
  if (f.type !== undefined) base = base.where('type', '=', f.type);
  if (f.deliveryState !== undefined) base = base.where('delivery_state', '=', f.deliveryState);
  return keysetPage<Selectable<Database['webhook_events']>, Database, 'webhook_events'>(base, q);
}

export async function findWebhookEventRow(db: Executor, platformId: string, id: string) {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

export async function listWebhookAttempts(db: Executor, eventId: string): Promise<WebhookAttemptRow[]> {
  return db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', eventId).orderBy('id').execute();
}

/** One statement, so concurrent rotations each retire the secret that was current at that moment. */
export async function rotateWebhookSecret(db: Executor, platformId: string, secret: string, previousExpiresAt: number, now: number): Promise<void> {
  await db
    .updateTable('platform_webhook_config')
    .set((eb) => ({ previous_secret: eb.ref('secret'), secret, previous_secret_expires_at: previousExpiresAt, updated_at: now }))
    .where('platform_id', '=', platformId)
    .execute();
}
