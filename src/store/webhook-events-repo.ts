import { sql } from 'kysely';
import type { WebhookEventRow } from './tables/webhook-events.js';
import { enqueuedRows, enqueueJobs, type NewJob } from './jobs-repo.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Two placeholders in an event's body (each a JSON string, quotes included, standing where a
 * number goes) replaced as the event is inserted by an account's available and total balances as
 * the unit of work leaves them at that point: an event recorded after a hold written at commit
 * (accounts-repo.ts, holdAtCommit) reports the balances that hold left, which on PostgreSQL no one
 * knew when the event was rendered (both go out with COMMIT).
 */
export interface BalancePlaceholders {
  table: 'internal_accounts' | 'platform_internal_accounts';
  accountId: string;
  available: string;
  total: string;
}

/**
 * Inserts events in one statement, each placed on the events list when the unit of work commits,
 * with `jobs` (their deliveries) enqueued in the same statement on PostgreSQL (a data-modifying
 * WITH: one round trip fewer per event batch, and a landing holds its account's lock across it),
 * in a second one on SQLite.
 */
export async function insertWebhookEvents(
  uow: UnitOfWork,
  rows: readonly WebhookEventRow[],
  jobs: readonly NewJob[] = [],
  now = Date.now(),
  patches: ReadonlyMap<string, BalancePlaceholders> = new Map(),
): Promise<void> {
  if (rows.length === 0) return enqueueJobs(uow, jobs, now);
  const body = (r: WebhookEventRow) => {
    const p = patches.get(r.id);
    if (!p) return r.body;
    const balance = (column: 'available_balance' | 'total_balance') => sql<string>`(select cast(${sql.ref(column)} as text) from ${sql.table(p.table)} where id = ${p.accountId})`;
    return sql<string>`replace(replace(${r.body}, ${JSON.stringify(p.available)}, ${balance('available_balance')}), ${JSON.stringify(p.total)}, ${balance('total_balance')})`;
  };
  const events = uow.db.insertInto('webhook_events').values(rows.map((r) => ({ ...r, body: body(r), list_position: r.created_at })));
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
