import type { Executor } from './store.js';
import type { WebhookEventRow } from './tables/webhook-events.js';

export async function insertWebhookEvent(db: Executor, row: WebhookEventRow): Promise<void> {
  await db.insertInto('webhook_events').values(row).execute();
}

export async function findWebhookEvent(db: Executor, platformId: string, id: string): Promise<WebhookEventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}
