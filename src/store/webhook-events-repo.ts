import type { WebhookEventRow } from './tables/webhook-events.js';
import { enqueuedRows, enqueueJobs, type NewJob } from './jobs-repo.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Inserts events in one statement, each placed on the events list when the unit of work commits,
 * with `jobs` (their deliveries) enqueued in the same statement on PostgreSQL (a data-modifying
 * WITH: one round trip fewer per event batch, and a landing holds its account's lock across it),
 * in a second one on SQLite.
 */
export async function insertWebhookEvents(uow: UnitOfWork, rows: readonly WebhookEventRow[], jobs: readonly NewJob[] = [], now = Date.now()): Promise<void> {
  if (rows.length === 0) return enqueueJobs(uow, jobs, now);
  const events = uow.db.insertInto('webhook_events').values(rows.map((r) => ({ ...r, list_position: r.created_at })));
  if (uow.engine === 'postgres' && jobs.length > 0) {
    const { rows: jobRows, inserted } = enqueuedRows(uow, jobs, now);
    await uow.write(uow.db.with('e', () => events).insertInto('jobs').values(jobRows));
    inserted();
  } else {
    await uow.write(events);
    await enqueueJobs(uow, jobs, now);
  }
  for (const r of rows) uow.listAtCommit(r.platform_id, 'webhook_events', r.id);
}
