// Written once per engine: dbClockMs, claimDueJobsByKind, dueJobIds and finishDoneJobs.
import { sql, type RawBuilder } from 'kysely';
import { executePlannedEachRun } from './pg-prepared-statements.js';
import { rowsRelation } from './bulk.js';
import type { Engine, Executor, Queryable } from './store.js';
import type { JobRow } from './tables/jobs.js';
import type { UnitOfWork } from './unit-of-work.js';

/** The PostgreSQL channel on which a commit that enqueued jobs wakes the workers of every process (the trigger of migration 014). */
export const JOBS_WAKEUP_CHANNEL = 'payments_jobs';

export interface NewJob {
  id: string;
  kind: string;
  payload: unknown;
  /** Jobs sharing a key run one at a time, in the order they were enqueued. */
  queueKey?: string | null;
  runAt?: number;
  /** A job due at a time of its platform's sandbox clock (PlatformClock.due gives the three fields): an advance pulls it forward. */
  platformId?: string;
  platformDueAt?: number;
}

/** Adds a job in the caller's unit of work, so it commits with the business write; the workers wake once it commits. */
export async function enqueueJob(uow: UnitOfWork, job: NewJob, now = Date.now()): Promise<void> {
  await enqueueJobs(uow, [job], now);
}

/** Adds jobs in one statement (see enqueueJob, enqueuedRows). */
export async function enqueueJobs(uow: UnitOfWork, jobs: readonly NewJob[], now = Date.now()): Promise<void> {
  if (jobs.length === 0) return;
  const { rows, inserted } = enqueuedRows(uow, jobs, now);
  await uow.write(uow.db.insertInto('jobs').values(rows));
  inserted();
}

/**
 * The rows that enqueue `jobs` in this unit of work, for an insert into `jobs` (enqueueJobs, or a
 * statement that writes another table as well), and `inserted`, to call once that statement ran:
 * it wakes the workers at the commit. In a unit of work that leases the jobs it enqueues
 * (UnitOfWork.leaseEnqueuedJobs), those due now with no queue key are inserted leased, as a claim
 * would leave them, and handed to their owner at the commit instead; every row then sets the
 * lease's expiry as an expression (null for the others), so the text depends only on the number of rows.
 */
export function enqueuedRows(uow: UnitOfWork, jobs: readonly NewJob[], now: number) {
  const leasing = uow.leasing;
  if (!leasing) return { rows: jobs.map((job) => jobRow(job, now)), inserted: () => uow.jobsEnqueued() };
  const leased: JobRow[] = [];
  const rows = jobs.map((job) => {
    const row = jobRow(job, now);
    const lease = job.runAt === undefined && row.queue_key === null ? uow.takeLease(job.kind) : undefined;
    if (lease) {
      Object.assign(row, { lease_owner: lease.owner, attempts: 1 });
      leased.push({ ...row, lease_expires_at: Date.now() + lease.leaseMs });
    }
    return { ...row, lease_expires_at: sql<number | null>`${dbClockMs(uow.engine)} + ${lease ? lease.leaseMs : null}` };
  });
  const inserted = () => {
    for (const job of leased) uow.enqueuedLeased(job);
    // The leased ones are run by their owner after the commit; the others wake the workers.
    if (leased.length < rows.length) uow.jobsEnqueued();
  };
  return { rows, inserted };
}

/** The row a new job is inserted as. */
export function jobRow(job: NewJob, now: number): JobRow {
  // The platform columns only when set: the rows of a multi-row insert (and the authorization's one statement) keep their columns.
  const platformDue = job.platformId === undefined ? {} : { platform_id: job.platformId, platform_due_at: job.platformDueAt ?? null };
  return {
    ...platformDue,
    id: job.id,
    kind: job.kind,
    payload: JSON.stringify(job.payload),
    queue_key: job.queueKey ?? null,
    state: 'queued',
    // Real time, as the worker judges due times by the database's clock: `now` may be a platform's sandbox clock.
    run_at: job.runAt ?? Date.now(),
    attempts: 0,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * The database's clock in epoch milliseconds. Leases and due times are judged by it, never by a
 * process's clock, so processes whose clocks disagree still agree on who holds a job. On SQLite
 * (one machine) it is the same clock as the processes', read by SQLite itself.
 */
export function dbClockMs(engine: Engine): RawBuilder<number> {
  return engine === 'postgres'
    ? sql<number>`(extract(epoch from statement_timestamp()) * 1000)::bigint`
    : // julianday is SQLite's whole milliseconds as a fraction of a day: truncating it back gave the
      // millisecond before Date.now() half the time, so a job enqueued due now and claimed within the
      // same millisecond was not due yet, and waited for the next JOB_POLL_MS poll.
      sql<number>`cast(round((julianday('now') - 2440587.5) * 86400000) as integer)`;
}

/**
 * Leases up to `limit` due jobs of the given kinds (see dueJobIds) to `owner` for `leaseMs` of
 * the database's clock.
 */
export async function claimDueJobs(on: Queryable, args: { owner: string; kinds: string[]; leaseMs: number; limit: number }): Promise<JobRow[]> {
  if (args.kinds.length === 0 || args.limit <= 0) return [];
  return leaseJobs(on, args, [dueJobIds(on, args.kinds, args.limit)]);
}

/**
 * claimDueJobs for several kinds at once, each with its own limit, in one statement (one round
 * trip per wake-up instead of one per kind on PostgreSQL: a worker with five kinds sent 7.7 claims
 * per landed simulation; on SQLite a claim per kind was 156 us each, eight per wake-up).
 */
export async function claimDueJobsByKind(on: Queryable, args: { owner: string; leaseMs: number; limits: Map<string, number> }): Promise<JobRow[]> {
  const wanted = [...args.limits].filter(([, limit]) => limit > 0);
  if (wanted.length === 0) return [];
  if (on.engine === 'postgres') return (await sql<JobRow>`${pgLeaseByKind(args.owner, args.leaseMs, wanted)} returning *`.execute(on.db)).rows;
  return leaseJobs(on, args, wanted.map(([kind, limit]) => dueJobIds(on, [kind], limit)));
}

/**
 * PostgreSQL: claimDueJobsByKind's lease, without its `returning`: the kinds and their limits are
 * two array parameters, and each kind's due jobs are picked by a lateral subquery with that kind's
 * limit, so one text serves every set of kinds. It replaced a subquery per kind, 17 relations for
 * the worker's seven kinds, that PostgreSQL planned for 1.3-1.5 ms a claim; this one for 0.6 ms
 * (pg_stat_statements, bench webhooks, 300/s). Claims are still planned on most runs: a named
 * statement's first five runs on each connection are planned for their parameters, and again
 * after each VACUUM or ANALYZE of jobs (vacuumChurningTables). Written out, not built with the
 * query builder: building and compiling the seven subqueries on each wake-up was 6% of the
 * server's busy time.
 */
function pgLeaseByKind(owner: string, leaseMs: number, wanted: readonly [string, number][]): RawBuilder<unknown> {
  const now = dbClockMs('postgres');
  return sql`update jobs
    set lease_owner = ${owner}, lease_expires_at = ${now} + ${leaseMs}, attempts = attempts + 1, updated_at = ${now}
    where id = any(array(
      select due.id from unnest(${wanted.map(([kind]) => kind)}::text[], ${wanted.map(([, limit]) => limit)}::integer[]) as k(kind, n)
      cross join lateral (
        select j.id from jobs as j
        where j.state = 'queued' and j.kind = k.kind and j.run_at <= ${now}
          and (j.lease_expires_at is null or j.lease_expires_at < ${now})
          and (j.queue_key is null or not exists (select 1 from jobs as p where p.queue_key = j.queue_key and p.state = 'queued' and p.id < j.id))
        order by j.run_at, j.id
        limit k.n
        for update skip locked
      ) as due))`;
}

/**
 * The ids of up to `limit` due jobs of these kinds, oldest first. A job whose lease has expired
 * (its worker died) is due again. A job waits while an earlier job with its queue key is
 * unfinished. PostgreSQL skips rows another process is claiming or finishing at this moment.
 */
function dueJobIds(on: Queryable, kinds: string[], limit: number) {
  const now = dbClockMs(on.engine);
  let due = on.db
    .selectFrom('jobs as j')
    .select('j.id')
    // A literal: the partial index of queued jobs (migration 014) serves only a condition the planner sees.
    .where('j.state', '=', sql.lit('queued'))
    .where('j.run_at', '<=', now)
    .where('j.kind', 'in', kinds)
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
              .where('p.state', '=', sql.lit('queued'))
              .whereRef('p.id', '<', 'j.id'),
          ),
        ),
      ]),
    )
    .orderBy('j.run_at')
    .orderBy('j.id')
    .limit(limit);
  if (on.engine === 'postgres') due = due.modifyEnd(sql`for update skip locked`);
  return due;
}

/**
 * Leases the jobs the id queries pick (each a subquery with its own order and limit) to `owner`
 * for `leaseMs` of the database's clock.
 */
async function leaseJobs(on: Queryable, args: { owner: string; leaseMs: number }, picks: ReturnType<typeof dueJobIds>[]): Promise<JobRow[]> {
  return leaseQuery(on, args, picks).execute();
}

function leaseQuery(on: Queryable, args: { owner: string; leaseMs: number }, picks: ReturnType<typeof dueJobIds>[]) {
  const now = dbClockMs(on.engine);
  const update = on.db.updateTable('jobs').set((eb) => ({
    lease_owner: args.owner,
    lease_expires_at: sql<number>`${now} + ${args.leaseMs}`,
    attempts: eb('attempts', '+', 1),
    updated_at: now,
  }));
  const picked =
    picks.length === 1
      ? update.where('id', 'in', picks[0]!)
      : // SQLite (PostgreSQL leases several kinds with pgLeaseByKind): their rows, each query kept whole.
        update.where(sql<boolean>`id in (${sql.join(picks.map((p) => sql`select id from (${p})`), sql` union all `)})`);
  return picked.returningAll();
}

/**
 * Milliseconds of the database's clock until a queued job of these kinds next becomes claimable
 * (a retry's time, or the end of a lease), counting from `lookbackMs` ago so that a job that
 * became due while the caller claimed is not missed; undefined when none is waiting.
 */
export async function msUntilNextDue(on: Queryable, kinds: string[], lookbackMs: number): Promise<number | undefined> {
  if (kinds.length === 0) return undefined;
  return msUntil(await nextDueQuery(on, kinds, lookbackMs).executeTakeFirst());
}

function nextDueQuery(on: Queryable, kinds: string[], lookbackMs: number) {
  const now = dbClockMs(on.engine);
  return on.db
    .selectFrom('jobs')
    .select([
      sql<number | null>`min(case when lease_expires_at is null or lease_expires_at < run_at then run_at else lease_expires_at end)`.as('next'),
      now.as('now'),
    ])
    // A literal, as in dueJobIds: the partial index of queued jobs serves only what a generic plan sees.
    .where('state', '=', sql.lit('queued'))
    .where('kind', 'in', kinds)
    .where((eb) => eb.or([eb('run_at', '>', sql<number>`${now} - ${lookbackMs}`), eb('lease_expires_at', '>', sql<number>`${now} - ${lookbackMs}`)]));
}

function msUntil(row: { next: number | string | null; now: number | string } | undefined): number | undefined {
  if (row?.next === null || row?.next === undefined) return undefined;
  return Number(row.next) - Number(row.now);
}

/**
 * claimDueJobsByKind, then msUntilNextDue for `next.kinds` counting the jobs it claimed as taken:
 * on PostgreSQL in one statement (a worker woken by each accepted request sent the two one after
 * the other, a round trip each), on SQLite one after the other.
 */
export async function claimDueJobsAndNextDue(
  on: Queryable,
  args: { owner: string; leaseMs: number; limits: Map<string, number> },
  next: { kinds: string[]; lookbackMs: number },
): Promise<{ jobs: JobRow[]; nextDueMs: number | undefined }> {
  const wanted = [...args.limits].filter(([, limit]) => limit > 0);
  if (on.engine !== 'postgres' || wanted.length === 0 || next.kinds.length === 0) {
    const jobs = await claimDueJobsByKind(on, args);
    return { jobs, nextDueMs: await msUntilNextDue(on, next.kinds, next.lookbackMs) };
  }
  // The due-time read sees the table as it was before the claim: the claimed jobs are left out by id.
  const due = nextDueQuery(on, next.kinds, next.lookbackMs).where(sql<boolean>`id not in (select id from claimed)`);
  const { rows } = await sql<{ claimed: JobRow[] | null; next: number | string | null; now: number | string }>`with
    claimed as (${pgLeaseByKind(args.owner, args.leaseMs, wanted)} returning *),
    due as (${due})
    select (select json_agg(claimed) from claimed) as claimed, due.next, due.now from due`.execute(on.db);
  const row = rows[0]!;
  return { jobs: row.claimed ?? [], nextDueMs: msUntil(row) };
}

/**
 * Ends a job's run; false when this run no longer holds the lease (another worker, or this one
 * after the lease ran out, claimed it again). `attempts` is the claim's count: it fences off a stale
 * run of the same owner. A queued job runs again `delayMs` after now, by the database's clock.
 */
export async function finishJob(
  on: Queryable,
  args: { id: string; owner: string; state: 'queued' | 'done' | 'failed'; delayMs?: number; error?: string | null; attempts?: number },
): Promise<boolean> {
  const now = dbClockMs(on.engine);
  let q = on.db
    .updateTable('jobs')
    .set({
      state: args.state,
      run_at: args.delayMs ? sql<number>`${now} + ${Math.max(0, Math.round(args.delayMs))}` : now,
      lease_owner: null,
      lease_expires_at: null,
      last_error: args.error ?? null,
      updated_at: now,
    })
    .where('id', '=', args.id)
    .where('lease_owner', '=', args.owner)
    .where('state', '=', 'queued');
  if (args.attempts !== undefined) q = q.where('attempts', '=', args.attempts);
  const r = await executePlannedEachRun(on.db, q);
  return Number(r.numAffectedRows) === 1;
}

/**
 * Ends runs that succeeded (finishJob with state done) in one statement on PostgreSQL, one per
 * run on SQLite; answers the ids of those whose lease this owner still held (the others are
 * left alone: their new owner runs them).
 */
export async function finishDoneJobs(on: Queryable, owner: string, runs: readonly { id: string; attempts: number }[]): Promise<Set<string>> {
  const held = new Set<string>();
  if (runs.length === 0) return held;
  if (on.engine === 'sqlite') {
    for (const run of runs) if (await finishJob(on, { id: run.id, owner, state: 'done', attempts: run.attempts })) held.add(run.id);
    return held;
  }
  const r = await executePlannedEachRun(on.db, endDoneJobs(owner, runs));
  for (const row of r.rows) held.add(row.id);
  return held;
}

/** PostgreSQL: the statement of finishDoneJobs, answering the ids it ended; also a data-modifying WITH of a statement that writes the runs' effects. */
export function endDoneJobs(owner: string, runs: readonly { id: string; attempts: number }[]): RawBuilder<{ id: string }> {
  const now = dbClockMs('postgres');
  return sql<{ id: string }>`update jobs as j
    set state = 'done', run_at = ${now}, lease_owner = null, lease_expires_at = null, last_error = null, updated_at = ${now}
    from ${rowsRelation({ id: 'text', attempts: 'integer' }, runs)}
    where j.id = v.id and j.attempts = v.attempts and j.lease_owner = ${owner} and j.state = 'queued'
    returning j.id`;
}

export async function findJob(db: Executor, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * PostgreSQL: fresh statistics of the jobs table, whose claims are named statements: PostgreSQL
 * keeps the generic plan it made after a statement's fifth run, and on a new database that was
 * while the table held a few rows, a sequential scan of it, until autovacuum's ANALYZE a minute or
 * more later. An ANALYZE makes every session plan them again. The worker asks for it as the jobs it
 * claimed pass 200, 2,000, 20,000... Counted with pg_stat_statements (bench webhooks, 300/s, a new
 * database): 6.5 ms and 613 buffers a claim before; planned on every run instead, 0.5 ms to run
 * but 2.4 ms to plan.
 */
export async function analyzeJobs(on: Queryable): Promise<void> {
  if (on.engine === 'postgres') await sql`analyze jobs`.execute(on.db);
}
