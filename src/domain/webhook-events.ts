import { enqueueJob } from '../store/jobs-repo.js';
import type { Trx } from '../store/store.js';
import { insertWebhookEvent } from '../store/webhook-events-repo.js';
import { newId } from './ids.js';

export const DELIVER_WEBHOOK_JOB = 'webhook.deliver';

export interface WebhookEventInput {
  platformId: string;
  /** e.g. CARD_TRANSACTION.EXPIRED */
  type: string;
  /** Everything after id, type and timestamp in the delivered body (data, operation, ...). */
  fields: Record<string, unknown>;
}

/**
 * Stores an event and its delivery job inside the caller's transaction: the event exists if and
 * only if the change it reports committed. Emit services.jobSignal 'enqueued' after the commit.
 */
export async function recordWebhookEvent(trx: Trx, input: WebhookEventInput, now = Date.now()): Promise<{ id: string; body: string }> {
  const id = newId('Webhook');
  const body = JSON.stringify({ id, type: input.type, timestamp: new Date(now).toISOString(), ...input.fields });
  await insertWebhookEvent(trx, {
    id,
    platform_id: input.platformId,
    type: input.type,
    body,
    delivery_state: 'PENDING',
    created_at: now,
    updated_at: now,
  });
  await enqueueJob(trx, { id: newId('Job'), kind: DELIVER_WEBHOOK_JOB, payload: { eventId: id, platformId: input.platformId } }, now);
  return { id, body };
}
