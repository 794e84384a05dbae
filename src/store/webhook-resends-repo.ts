import type { Executor } from './store.js';

/** Which events a bulk resend takes: recover the failed ones, or replay those the endpoint never got. */
export type ResendMode = 'recover' | 'replay-missing';

/** The events of a platform a bulk resend selects, created within [since, until], to the endpoint `url`. */
export interface ResendSelection {
  platformId: string;
  mode: ResendMode;
  since: number;
  until: number;
  url: string;
  /** Now: a PENDING event whose next retry is later than this is recover's too. */
  now: number;
}

/**
 * recover: the latest attempt went to `url` (an event that failed at an earlier endpoint is
 * replay-missing's) and failed: FAILED, or PENDING with its next retry still to come (a resend
 * makes it due now, so a second call does not take it again). replay-missing: never attempted at
 * `url`, and either made with no endpoint or attempted at another one (an event whose attempts
 * were all pruned is left alone: nothing says where it went); PENDING events are not taken.
 */
function selected(db: Executor, s: ResendSelection) {
  const base = db
    .selectFrom('webhook_events as e')
    .where('e.platform_id', '=', s.platformId)
    .where('e.created_at', '>=', s.since)
    .where('e.created_at', '<=', s.until);
  if (s.mode === 'recover') {
    return base
      .where((eb) => eb.or([eb('e.delivery_state', '=', 'FAILED'), eb.and([eb('e.delivery_state', '=', 'PENDING'), eb('e.next_attempt_at', '>', s.now)])]))
      .where((eb) => eb(eb.selectFrom('webhook_attempts as a').select('a.url').whereRef('a.event_id', '=', 'e.id').orderBy('a.id', 'desc').limit(1), '=', s.url));
  }
  return base
    .where('e.delivery_state', '<>', 'PENDING')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_attempts as a').select('a.id').whereRef('a.event_id', '=', 'e.id').where('a.url', '=', s.url))))
    .where((eb) =>
      eb.or([
        eb('e.delivery_state', '=', 'WEBHOOK_ENDPOINT_NOT_SET'),
        eb.exists(eb.selectFrom('webhook_attempts as a').select('a.id').whereRef('a.event_id', '=', 'e.id').where('a.url', '<>', s.url)),
      ]),
    );
}

export async function countResendable(db: Executor, s: ResendSelection): Promise<number> {
  const r = await selected(db, s).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The next `limit` selected event ids after `afterId`, in id (creation) order. */
export async function findResendableIds(db: Executor, s: ResendSelection, limit: number, afterId?: string): Promise<string[]> {
  let q = selected(db, s).select('e.id').orderBy('e.id').limit(limit);
  if (afterId !== undefined) q = q.where('e.id', '>', afterId);
  return (await q.execute()).map((r) => r.id);
}

/** Marks events PENDING again, due now, in one statement. */
export async function setEventsPending(db: Executor, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('webhook_events').set({ delivery_state: 'PENDING', next_attempt_at: now, updated_at: now }).where('id', 'in', [...ids]).execute();
}
