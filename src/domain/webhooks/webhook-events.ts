import type { NewJob } from '../../store/jobs-repo.js';
import type { WebhookEventRow } from '../../store/tables/webhook-events.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { insertWebhookEvents, type BalancePlaceholders } from '../../store/webhook-events-repo.js';
import { newId } from '../shared/ids.js';

export const DELIVER_WEBHOOK_JOB = 'webhook.deliver';

export interface WebhookEventInput {
  platformId: string;
  /** e.g. CARD_TRANSACTION.EXPIRED */
  type: string;
  /** Everything after id, type and timestamp in the delivered body (data, operation, ...). */
  fields: Record<string, unknown>;
  /** Placeholders in `fields` filled in with an account's balances as the event is written (see BalancePlaceholders). */
  balancesOf?: BalancePlaceholders;
}

/**
 * Stores an event and its delivery job in the caller's unit of work: the event exists if and only
 * if the change it reports committed (and the workers wake once it has).
 */
export async function recordWebhookEvent(uow: UnitOfWork, input: WebhookEventInput, now = Date.now()): Promise<{ id: string; body: string }> {
  return (await recordWebhookEvents(uow, [input], now))[0]!;
}

/**
 * recordWebhookEvent for several events, in one or two statements whatever their number (see
 * insertWebhookEvents); `jobs`, other jobs of the same commit, are enqueued in that statement too.
 */
export async function recordWebhookEvents(uow: UnitOfWork, inputs: readonly WebhookEventInput[], now = Date.now(), jobs: readonly NewJob[] = []): Promise<{ id: string; body: string }[]> {
  const patches = new Map<string, BalancePlaceholders>();
  const rows: WebhookEventRow[] = inputs.map((input) => {
    const id = newId('Webhook');
    const body = JSON.stringify({ id, type: input.type, timestamp: new Date(now).toISOString(), ...input.fields });
    if (input.balancesOf) patches.set(id, input.balancesOf);
    return { id, platform_id: input.platformId, type: input.type, body, delivery_state: 'PENDING', created_at: now, updated_at: now };
  });
  await insertWebhookEvents(uow, rows, [...deliveryJobs(rows), ...jobs], now, patches);
  return rows.map((r) => ({ id: r.id, body: r.body }));
}

/** The delivery job of each event. */
export function deliveryJobs(events: readonly Pick<WebhookEventRow, 'id' | 'platform_id'>[]): NewJob[] {
  return events.map((e) => ({ id: newId('Job'), kind: DELIVER_WEBHOOK_JOB, payload: { eventId: e.id, platformId: e.platform_id } }));
}
