import { insertListed } from './list-clock.js';
import type { Executor } from './store.js';
import type { WebhookEventRow } from './tables/webhook-events.js';

/** Inserts an event, placed on the events list when the transaction commits (see insertListed). */
export async function insertWebhookEvent(db: Executor, row: WebhookEventRow): Promise<void> {
  await insertListed(db, 'webhook_events', row, (trx, r) => trx.insertInto('webhook_events').values(r).execute());
}
