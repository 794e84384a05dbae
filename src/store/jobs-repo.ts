import { sql } from 'kysely';
import type { Engine, Executor } from './store.js';
import type { JobRow } from './tables/jobs.js';

export interface NewJob {
  id: string;
  kind: string;
  payload: unknown;
  /** Jobs sharing a key run one at a time, in the order they were enqueued. */
  queueKey?: string | null;
  runAt?: number;
}

/** Adds a job; call it inside the caller's transaction so the job commits with the business write. */
export async function enqueueJob(db: Executor, job: NewJob, now = Date.now()): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      id: job.id,
      kind: job.kind,
      payload: JSON.stringify(job.payload),
      queue_key: job.queueKey ?? null,
      state: 'queued',
      run_at: job.runAt ?? now,
      attempts: 0,
      lease_owner: null,
      lease_expires_at: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/**
 * Leases up to `limit` due jobs of the given kinds to `owner`. A job whose lease has expired (its
 * worker died) is due again. A job waits while an earlier job with its queue key is unfinished.
 * PostgreSQL skips rows another process is claiming at this moment.
 */
export async function claimDueJobs(
  db: Executor,
  engine: Engine,
  args: { owner: string; kinds: string[]; now: number; leaseMs: number; limit: number },
): Promise<JobRow[]> {
  if (args.kinds.length === 0 || args.limit <= 0) return [];
  const { now } = args;
  let due = db
    .selectFrom('jobs as j')
    .select('j.id')
    .where('j.state', '=', 'queued')
    .where('j.run_at', '<=', now)
    .where('j.kind', 'in', args.kinds)
    .where((eb) => eb.or([eb('j.lease_expires_at', 'is', null), eb('j.lease_expires_at', '<', now)]))
    .where((eb) =>
      eb.or([
        eb('j.queue_key', 'is', null),
        eb.not(
          eb.exists(
            eb
              .selectFrom('jobs as p')
              .select(sql`1`.as('one'))
              .whereRef('p.queue_key', '=', 'j.queue_key')
              .where('p.state', '=', 'queued')
              .whereRef('p.id', '<', 'j.id'),
          ),
        ),
      ]),
    )
    .orderBy('j.run_at')
    .orderBy('j.id')
    .limit(args.limit);
  if (engine === 'postgres') due = due.modifyEnd(sql`for update skip locked`);
  return db
    .updateTable('jobs')
    .set((eb) => ({
      lease_owner: args.owner,
      lease_expires_at: now + args.leaseMs,
      attempts: eb('attempts', '+', 1),
      updated_at: now,
    }))
    .where('id', 'in', due)
    .returningAll()
    .execute();
}

/**
 * Ends a job's run; false when this run no longer holds the lease (another worker, or this one
 * after the lease ran out, claimed it again). `attempts` is the claim's count: it fences off a stale
 * run of the same owner.
 */
export async function finishJob(
  db: Executor,
  args: { id: string; owner: string; now: number; state: 'queued' | 'done' | 'failed'; runAt?: number; error?: string | null; attempts?: number },
): Promise<boolean> {
  let q = db
    .updateTable('jobs')
    .set({
      state: args.state,
      run_at: args.runAt ?? args.now,
      lease_owner: null,
      lease_expires_at: null,
      last_error: args.error ?? null,
      updated_at: args.now,
    })
    .where('id', '=', args.id)
    .where('lease_owner', '=', args.owner)
    .where('state', '=', 'queued');
  if (args.attempts !== undefined) q = q.where('attempts', '=', args.attempts);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function findJob(db: Executor, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}
