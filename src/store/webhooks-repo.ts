import type { Selectable } from 'kysely';
import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import type { PageQuery } from './page.js';
import type { Executor } from './store.js';
import type { DeliveryState } from './tables/webhook-events.js';
import type { PlatformWebhookConfigRow, WebhookAttemptRow } from './tables/webhooks.js';

/** The platform's config row; `lock` takes a row lock (PostgreSQL). */
export async function findWebhookConfig(db: Executor, platformId: string, lock = false): Promise<PlatformWebhookConfigRow | undefined> {
  const q = db.selectFrom('platform_webhook_config').selectAll().where('platform_id', '=', platformId);
  return (lock ? q.forNoKeyUpdate() : q).executeTakeFirst();
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

/** Everything one delivery attempt needs, in one read: the event and where and how to send it. */
export async function findEventForDelivery(db: Executor, platformId: string, eventId: string) {
  return db
    .selectFrom('webhook_events as e')
    .leftJoin('platform_webhook_config as c', 'c.platform_id', 'e.platform_id')
    .select([
      'e.id',
      'e.body',
      'e.delivery_state',
      'e.attempt_count',
      'c.webhook_endpoint',
      'c.secret',
      'c.previous_secret',
      'c.previous_secret_expires_at',
      'c.signing_private_key',
    ])
    .where('e.id', '=', eventId)
    .where('e.platform_id', '=', platformId)
    .executeTakeFirst();
}

export async function insertWebhookAttempt(db: Executor, row: WebhookAttemptRow): Promise<void> {
  await db.insertInto('webhook_attempts').values(row).execute();
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
