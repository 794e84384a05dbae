import type { WebhookEventRow } from './tables/webhook-events.js';
import type { UnitOfWork } from './unit-of-work.js';

/** Inserts events in one statement, each placed on the events list when the unit of work commits. */
export async function insertWebhookEvents(uow: UnitOfWork, rows: readonly WebhookEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await uow.db
    .insertInto('webhook_events')
    .values(rows.map((r) => ({ ...r, list_position: r.created_at })))
    .execute();
  for (const r of rows) uow.listAtCommit(r.platform_id, 'webhook_events', r.id);
}
