import type { Executor } from './store.js';
import type { WebhookEventRow } from './tables/webhook-events.js';

export async function insertWebhookEvent(db: Executor, row: WebhookEventRow): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}
