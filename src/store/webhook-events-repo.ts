import { listAtCommit } from './list-clock.js';
import type { Trx } from './store.js';
import type { WebhookEventRow } from './tables/webhook-events.js';

/** Inserts events in one statement, each placed on the events list when the transaction commits. */
export async function insertWebhookEvents(trx: Trx, rows: readonly WebhookEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('webhook_events')
    .values(rows.map((r) => ({ ...r, list_position: r.created_at })))
    .execute();
  for (const r of rows) listAtCommit(trx, r.platform_id, 'webhook_events', r.id);
}
