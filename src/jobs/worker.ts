import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Services } from '../services.js';
import type { Logger } from '../logger.js';
import { idBoundAt } from '../domain/shared/ids.js';
import { DELIVER_WEBHOOK_JOB } from '../domain/webhooks/webhook-events.js';
import { analyzeJobs, claimDueJobsAndNextDue, claimDueJobsByKind, finishDoneJobs, finishJob, JOBS_WAKEUP_CHANNEL } from '../store/jobs-repo.js';
import { deleteAttemptsBefore, deleteFinishedJobs, vacuumChurningTables } from '../store/retention-repo.js';
import { deleteRequestLogsBefore, requestLogCutoff } from '../store/request-logs-repo.js';
import type { WakeupListener } from '../store/pg-wakeups.js';
import type { Engine } from '../store/store.js';
import type { JobRow } from '../store/tables/jobs.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { retryDelayMs } from './backoff.js';
import type { JobHandler, JobResult } from './types.js';

class LeaseLost extends Error {}

/** PostgreSQL's deadlock and serialization failures: the statement may simply be tried again. */
function isLockConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** A batch's commit: its unit of work (committed), and per run its failure, if any, and how it ended the job. */
interface Committed {
  uow: UnitOfWork;
  failures: (unknown | undefined)[];
  finishes: { state: 'done' | 'queued' | 'failed' }[];
}

interface PendingCommit {
  job: JobRow;
  handler: JobHandler;
  result: JobResult;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * How finished jobs are committed: in batches of up to `batch` jobs, at most `lanes` batches at
 * once per commit group (see commitGroup), each on its own connection. Runs that can be written
 * together (JobHandler.writeTogether) share one savepoint and a few statements; the others get a
 * savepoint each. SQLite has one writer: one lane of group commits of up to 128, as one commit per
 * batch is most of its throughput. PostgreSQL, the other jobs: batches of up to 32 on two lanes.
 * Landings are written set-based, a dozen statements per batch whatever its size, so a batch holds
 * its accounts' row locks for those only (3 lanes of 64 committed 15.7 jobs per batch in 107 ms, 1
 * lane of 128 26 jobs in 53 ms, at 600 simulations/s on one funded account; 2 lanes of 32 against
 * 2 of 128 showed no difference beyond the runs' noise at 600/s and 700/s, so the smaller, shorter
 * transactions); two lanes, so that one batch whose write waits (on a lock a request holds) holds
 * up no job that finishes after it. Deliveries: one lane, as a batch of them is one statement
 * (JobHandler.commitTogether) waiting on no lock, and the deliveries that finish while it runs
 * make the next batch (at 150 authorizations/s, 1,904 -> 1,202 delivery commits for 1,500).
 */
const COMMITS: Record<Engine, Record<CommitGroup, { lanes: number; batch: number }>> = {
  sqlite: { work: { lanes: 1, batch: 128 }, deliveries: { lanes: 1, batch: 128 } },
  postgres: { work: { lanes: 2, batch: 32 }, deliveries: { lanes: 1, batch: 64 } },
};
type CommitGroup = 'work' | 'deliveries';
/**
 * PostgreSQL: webhook deliveries commit in lanes of their own. Their commits touch no account, and
 * must not wait behind a batch of landings queued on a busy account's row lock: a delivery holds
 * its slot until its commit, so deliveries slowed down with the landings. Measured (one funded
 * account, 300 authorizations/s for 5 s): 202 -> webhook p50 6.8-7.7 s -> 4.4-4.8 s. SQLite has
 * one writer: one group.
 */
function commitGroup(engine: Engine, kind: string): CommitGroup {
  return engine === 'postgres' && kind === DELIVER_WEBHOOK_JOB ? 'deliveries' : 'work';
}
/** Rows one pruning statement deletes, and statements one pass runs per table: short transactions. */
const PRUNE_BATCH = 500;
const PRUNE_BATCHES_PER_PASS = 20;
/**
 * PostgreSQL: job runs between two looks at the tables they rewrite, the old row versions that get
 * such a table vacuumed (vacuumChurningTables), and the rest a vacuum leaves after it, as a
 * multiple of its own duration (at most a tenth of one connection's time goes to vacuuming).
 * Measured (bench webhooks, PostgreSQL alone, 300 authorizations/s for 20 s on a new database,
 * pg_stat_statements): without vacuums a claim read 520-656 buffers, a delivery commit 320-335,
 * and 79-84% of webhooks came within 1 s; vacuuming every 2 s or so, 170-350 and 206-277, and
 * 89-100%. Each vacuum has every connection plan its statements on the tables again (their
 * statistics changed): that is paid for.
 */
const VACUUM = { everyRuns: 500, minDead: 1_000, restFactor: 9 };

export interface WorkerOptions {
  /**
   * The process's clock, for what the worker stamps itself (an event's FAILED time). Leases and
   * due times never use it: they are read from the database's clock. A test skews it.
   */
  clock?: () => number;
  /** How often finished jobs and old webhook attempts are pruned; a minute unless told. */
  pruneEveryMs?: number;
  /** When the tables job runs rewrite are vacuumed (PostgreSQL); VACUUM unless told. */
  vacuum?: { everyRuns: number; minDead: number };
}

/**
 * Claims due jobs with a lease and runs them, up to `concurrency` at a time. Wakes at once when
 * this process enqueues; on PostgreSQL also when any process does (LISTEN/NOTIFY), and then polls
 * only slowly, as a safety net, or when a retry or a lease is next due. Otherwise polls every
 * JOB_POLL_MS. stop() claims nothing more and waits for running jobs.
 */
export class Worker {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly handlers: Map<string, JobHandler>;
  private readonly running = new Set<Promise<void>>();
  private readonly runningByKind = new Map<string, number>();
  /** Slots promised to jobs that batches being committed insert leased to this worker (see leaseFor). */
  private readonly reservedByKind = new Map<string, number>();
  /** The kinds the latest claim took to their limit (or had no slot for): a run of one ending frees a slot worth claiming. */
  private fullKinds = new Set<string>();
  /** Claims begun so far (see execute). */
  private claims = 0;
  /** Jobs claimed so far, and how many more make the jobs table worth analyzing again (see analyzeJobs). */
  private claimedJobs = 0;
  private analyzeAt = 200;
  /** Runs since the last look at the tables to vacuum, the look under way, and when the next may start (see VACUUM). */
  private runsSinceVacuum = 0;
  private vacuuming: Promise<void> | undefined;
  private vacuumNotBefore = 0;
  /** A claim took fewer jobs of a kind than it could have but for reserved slots. */
  private claimedShort = false;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;
  /** Finished runs waiting for a commit lane, per commit group (see commitGroup). */
  private readonly pendingCommits = new Map<CommitGroup, PendingCommit[]>();
  private readonly commitLanes = new Map<CommitGroup, number>();
  private listener: WakeupListener | undefined;
  private stopWaking: (() => void) | undefined;
  private readonly clock: () => number;
  private readonly pruneEveryMs: number;
  private readonly vacuum: { everyRuns: number; minDead: number };
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<unknown> | undefined;

  constructor(
    private readonly services: Services,
    handlers: JobHandler[],
    private readonly log: Logger,
    options: WorkerOptions = {},
  ) {
    this.handlers = new Map(handlers.map((h) => [h.kind, h]));
    this.clock = options.clock ?? Date.now;
    this.pruneEveryMs = options.pruneEveryMs ?? 60_000;
    this.vacuum = options.vacuum ?? VACUUM;
  }

  start(): this {
    this.stopWaking = this.services.store.onJobsEnqueued(this.wake);
    this.listener = this.services.store.wakeups?.listen(JOBS_WAKEUP_CHANNEL, this.wake, (err) =>
      this.log.warn({ err }, 'job wake-up connection lost; reconnecting, polling every JOB_POLL_MS meanwhile'),
    );
    this.wake();
    this.schedulePrune();
    return this;
  }

  private schedulePrune(): void {
    if (this.stopped) return;
    this.pruneTimer = setTimeout(() => {
      this.pruning = this.prune()
        .catch((err: unknown) => this.log.error({ err }, 'pruning finished jobs failed'))
        // The authorizations whose time-to-live ran out in real time expire here; an advance expires its own at once.
        .then(() => this.services.sandboxClock.sweep(this.log))
        .catch((err: unknown) => this.log.error({ err }, 'expiring authorizations failed'))
        .finally(() => {
          this.pruning = undefined;
          this.schedulePrune();
        });
    }, this.pruneEveryMs);
    this.pruneTimer.unref();
  }

  /**
   * Deletes finished jobs older than JOB_RETENTION_MS; when WEBHOOK_ATTEMPT_RETENTION_MS is set,
   * webhook attempts older than it; and request log entries older than REQUEST_LOG_RETENTION_MS
   * or past the REQUEST_LOG_MAX_ENTRIES newest: in statements of PRUNE_BATCH rows, each its own
   * short transaction, at most PRUNE_BATCHES_PER_PASS per table per pass (the next pass goes on).
   */
  async prune(): Promise<{ jobs: number; attempts: number; requestLogs: number }> {
    const { config, store } = this.services;
    const pruned = { jobs: 0, attempts: 0, requestLogs: 0 };
    const batches = async (key: keyof typeof pruned, run: () => Promise<number>) => {
      for (let i = 0; i < PRUNE_BATCHES_PER_PASS && !this.stopped; i++) {
        const n = await run();
        pruned[key] += n;
        if (n < PRUNE_BATCH) break;
      }
    };
    await batches('jobs', () => deleteFinishedJobs(store, config.jobRetentionMs, PRUNE_BATCH));
    if (config.webhookAttemptRetentionMs > 0) {
      const before = idBoundAt('WebhookAttempt', this.clock() - config.webhookAttemptRetentionMs);
      await batches('attempts', () => deleteAttemptsBefore(store, before, PRUNE_BATCH));
    }
    const beyondSize = await requestLogCutoff(store.db, config.requestLogMaxEntries);
    const before = Math.max(this.clock() - config.requestLogRetentionMs, beyondSize === undefined ? 0 : beyondSize + 1);
    await batches('requestLogs', () => deleteRequestLogsBefore(store, before, PRUNE_BATCH));
    if (pruned.jobs + pruned.attempts + pruned.requestLogs > 0) this.log.info(pruned, 'pruned finished jobs, old webhook attempts and request log entries');
    return pruned;
  }

  readonly wake = (): void => {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), 0);
  };

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWaking?.();
    clearTimeout(this.timer);
    clearTimeout(this.pruneTimer);
    await this.pruning;
    await this.vacuuming;
    await this.listener?.close();
    while (this.ticking || this.running.size > 0) await Promise.race([...this.running, new Promise((r) => setTimeout(r, 10))]);
  }

  /** Free slots per kind: each kind has its own limit, so slow webhook endpoints never starve simulations. */
  private freeSlots(): Map<string, number> {
    const free = new Map<string, number>();
    for (const [kind, handler] of this.handlers) {
      const taken = (this.runningByKind.get(kind) ?? 0) + (this.reservedByKind.get(kind) ?? 0);
      free.set(kind, (handler.concurrency?.(this.services) ?? this.services.config.jobConcurrency) - taken);
    }
    return free;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.ticking = true;
    let claimedAll = false;
    let anyFree = false;
    let idleMs = this.services.config.jobPollMs;
    try {
      const { config, store } = this.services;
      const limits = new Map([...this.freeSlots()].filter(([, free]) => free > 0));
      if ([...this.reservedByKind.values()].some((n) => n > 0)) this.claimedShort = true;
      anyFree = limits.size > 0;
      this.claims += 1;
      const claim = { owner: this.owner, leaseMs: config.jobLeaseMs, limits };
      // With wake-ups to rely on, the sleep after this claim lasts until the next due time, read with the claim (see idleMs).
      const due = this.listener?.connected && anyFree ? await claimDueJobsAndNextDue(store, claim, { kinds: [...this.handlers.keys()], lookbackMs: 1_000 }) : undefined;
      const jobs = due?.jobs ?? (await claimDueJobsByKind(store, claim));
      const claimed = new Map<string, number>();
      for (const job of jobs) claimed.set(job.kind, (claimed.get(job.kind) ?? 0) + 1);
      // A kind claimed to its limit may have more due right now.
      claimedAll = [...limits].every(([kind, free]) => (claimed.get(kind) ?? 0) >= free);
      this.fullKinds = new Set([...this.handlers.keys()].filter((kind) => (claimed.get(kind) ?? 0) >= (limits.get(kind) ?? 0)));
      for (const job of jobs) this.track(job.kind, this.execute(job));
      if (!claimedAll && !this.stopped) idleMs = this.idleMs(due);
      this.claimedJobs += jobs.length;
      if (this.claimedJobs >= this.analyzeAt) {
        this.analyzeAt *= 10;
        void analyzeJobs(store).catch((err: unknown) => this.log.warn({ err }, 'analyzing the jobs table failed'));
      }
    } catch (err) {
      claimedAll = false;
      this.log.error({ err }, 'job claim failed');
    } finally {
      this.ticking = false;
    }
    if (this.stopped) return;
    if (this.again || (claimedAll && anyFree)) {
      this.again = false;
      this.wake();
    } else {
      this.timer = setTimeout(() => void this.tick(), idleMs);
    }
  }

  /**
   * How long to sleep when nothing more is due. While wake-ups from other processes arrive
   * (PostgreSQL), until the next retry or lease expiry by the database's clock (`due`, read with
   * the claim), at least JOB_POLL_MS and at most JOB_SAFETY_POLL_MS; otherwise JOB_POLL_MS.
   */
  private idleMs(due: { nextDueMs: number | undefined } | undefined): number {
    const { config } = this.services;
    if (!due || !this.listener?.connected) return config.jobPollMs;
    const safety = Math.max(config.jobPollMs, config.jobSafetyPollMs);
    if (due.nextDueMs === undefined) return safety;
    return Math.min(safety, Math.max(config.jobPollMs, due.nextDueMs + 1));
  }

  /**
   * Counts a run in its kind's slots until it ends. Its end wakes the worker when a claim may now
   * find more: a job of its queue key a claim skipped meanwhile, a retry to schedule, or a kind
   * that was claimed to its limit; not after every run. Jobs enqueued by this process wake it as
   * they commit, by another process through PostgreSQL's wake-ups or else the JOB_POLL_MS poll.
   * Waking after every run claimed for nothing: on PostgreSQL a claim and a due-time read per
   * landing and per webhook; on SQLite, which had no wake-ups to rely on, it kept the worker
   * claiming back to back under any load (0.6-0.7 of a core in user time at 50 authorizations/s,
   * 11,410 claim statements for 500 authorizations, bench webhooks).
   */
  private track(kind: string, p: Promise<boolean>): void {
    const running = p
      .catch(() => true)
      .then((again) => {
        this.running.delete(running);
        this.runningByKind.set(kind, this.runningByKind.get(kind)! - 1);
        if (again || this.fullKinds.has(kind)) this.wake();
      });
    this.running.add(running);
    this.runningByKind.set(kind, (this.runningByKind.get(kind) ?? 0) + 1);
    this.runsSinceVacuum += 1;
    this.vacuumWhenDue();
  }

  /** Vacuums the tables job runs rewrite that need it, looking every so many runs and resting after each vacuum (PostgreSQL; see VACUUM). */
  private vacuumWhenDue(): void {
    const { store } = this.services;
    if (store.engine !== 'postgres' || this.vacuuming || this.stopped || this.runsSinceVacuum < this.vacuum.everyRuns || Date.now() < this.vacuumNotBefore) return;
    this.runsSinceVacuum = 0;
    const started = Date.now();
    this.vacuuming = vacuumChurningTables(store, this.vacuum.minDead)
      .then((tables) => {
        if (tables.length > 0) this.vacuumNotBefore = Date.now() + VACUUM.restFactor * (Date.now() - started);
      })
      .catch((err: unknown) => this.log.warn({ err }, 'vacuuming the tables job runs rewrite failed'))
      .finally(() => {
        this.vacuuming = undefined;
      });
  }

  /** Runs a claimed job and commits its outcome; answers whether a claim should follow (see track). */
  private async execute(job: JobRow): Promise<boolean> {
    const claimsBefore = this.claims;
    // A claim made while this ran skipped any job of its queue key enqueued behind it.
    const again = () => job.queue_key !== null && this.claims !== claimsBefore;
    const handler = this.handlers.get(job.kind)!;
    let result: JobResult;
    try {
      result = await handler.run(job, this.services, this.log);
    } catch (err) {
      this.log.warn({ err, jobId: job.id, kind: job.kind, attempts: job.attempts }, 'job attempt threw');
      result = { outcome: 'retry', error: err instanceof Error ? err.message : String(err) };
    }
    try {
      await this.commit(job, handler, result);
      return again() || result.outcome !== 'done';
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.log.warn({ jobId: job.id }, 'job lease lost before commit; its new owner will run it');
        return true;
      }
      // The effects were rolled back; record the failure so the job retries on schedule.
      this.log.error({ err, jobId: job.id, kind: job.kind }, 'job commit failed');
      await this.commit(job, handler, { outcome: 'retry', error: err instanceof Error ? err.message : String(err) }).catch((e2: unknown) =>
        this.log.error({ err: e2, jobId: job.id }, 'job retry could not be recorded; its lease will expire'),
      );
      return true;
    }
  }

  /** Queues a finished run for the next batch commit and resolves once it is durable. */
  private commit(job: JobRow, handler: JobHandler, result: JobResult): Promise<void> {
    return new Promise((resolve, reject) => {
      const group = commitGroup(this.services.store.engine, job.kind);
      let queue = this.pendingCommits.get(group);
      if (!queue) this.pendingCommits.set(group, (queue = []));
      queue.push({ job, handler, result, resolve, reject });
      this.flushCommits(group);
    });
  }

  /**
   * Batch commits (see COMMITS): every run finished since a lane last took its batch goes into
   * one unit of work, each inside its own savepoint, so one job's failure or lost lease rolls back
   * only that job (and what it queued for the commit). A lane is opened whenever runs wait and fewer than `lanes` are open.
   */
  private flushCommits(group: CommitGroup): void {
    const { lanes, batch } = COMMITS[this.services.store.engine][group];
    const queue = this.pendingCommits.get(group)!;
    while ((this.commitLanes.get(group) ?? 0) < lanes && queue.length > 0) {
      this.commitLanes.set(group, (this.commitLanes.get(group) ?? 0) + 1);
      // Takes its first batch before returning here, so the loop opens lanes only for runs left waiting.
      void this.commitLane(group, queue, batch);
    }
  }

  private async commitLane(group: CommitGroup, queue: PendingCommit[], batch: number): Promise<void> {
    try {
      while (queue.length > 0) await this.commitBatch(queue.splice(0, batch));
    } finally {
      this.commitLanes.set(group, this.commitLanes.get(group)! - 1);
    }
  }

  private async commitBatch(batch: PendingCommit[]): Promise<void> {
    const now = this.clock();
    const leases = this.leaseFor(batch);
    const alone = leases.size === 0 ? await this.commitTogether(batch) : undefined;
    if (alone) {
      this.release(leases);
      for (const item of batch) {
        if (alone.has(item.job.id)) item.resolve();
        else item.reject(new LeaseLost());
      }
      return;
    }
    let committed: Committed;
    try {
      committed = (await this.commitWhole(batch, leases, now)) ?? (await this.commitIsolated(batch, leases, now));
    } catch (err) {
      this.release(leases);
      for (const item of batch) item.reject(err);
      return;
    }
    const { uow, failures, finishes } = committed;
    this.release(leases);
    // No wake-up, claim and due-time read between a landing's commit and its webhooks (bench card-round-trips, PostgreSQL: 26 -> 16 statements from 202 to webhook with the rest).
    for (const job of uow.leasedJobs()) this.track(job.kind, this.execute(job));
    for (const [i, item] of batch.entries()) {
      if (failures[i] !== undefined) item.reject(failures[i]);
      else {
        if (item.result.outcome !== 'done' && finishes[i]!.state === 'failed') {
          this.log.error({ jobId: item.job.id, kind: item.job.kind, error: item.result.error }, 'job failed for good');
        }
        item.resolve();
      }
    }
  }

  /**
   * A batch whose runs are all of one kind, all done with a `together`, whose handler commits them
   * in one statement without a unit of work (JobHandler.commitTogether; webhook deliveries on
   * PostgreSQL): the ids of the jobs it ended. Undefined for any other batch, where the handler
   * declines, or when the statement failed (nothing was written: the batch is then committed the
   * usual way, which isolates a bad run).
   */
  private async commitTogether(batch: PendingCommit[]): Promise<Set<string> | undefined> {
    const handler = batch[0]!.handler;
    if (!handler.commitTogether || batch.some((item) => item.handler !== handler || item.result.outcome !== 'done' || item.result.together === undefined)) return undefined;
    const runs = batch.map(({ job, result }) => ({ job, together: (result as { together: unknown }).together }));
    try {
      return await handler.commitTogether(this.services.store, this.owner, runs);
    } catch (err) {
      if (!isLockConflict(err)) this.log.warn({ err, jobs: batch.length }, 'committing a batch of jobs in one statement failed; writing it in a unit of work');
      return undefined;
    }
  }

  /**
   * The batch in one unit of work without savepoints, as it almost always succeeds: on PostgreSQL
   * two round trips fewer per batch (a landing held its account's lock across the savepoint's
   * release). A run whose lease was lost writes nothing. Anything thrown undoes it all: undefined,
   * and the batch is written again with a savepoint per run or group (commitIsolated).
   */
  private async commitWhole(batch: PendingCommit[], leases: Map<string, number>, now: number): Promise<Committed | undefined> {
    const failures: (unknown | undefined)[] = [];
    const finishes: ReturnType<Worker['finishing']>[] = [];
    const uow = await this.services.store.begin();
    if (leases.size > 0) uow.leaseEnqueuedJobs(this.owner, this.services.config.jobLeaseMs, leases);
    try {
      const together = new Set<number>();
      for (const [, indexes] of this.togetherGroups(batch)) {
        const runs = indexes.map((i) => batch[i]!);
        const held = await finishDoneJobs(uow, this.owner, runs.map(({ job }) => ({ id: job.id, attempts: job.attempts })));
        const writing = runs.filter(({ job }) => held.has(job.id)).map(({ result }) => (result as { together: unknown }).together);
        await runs[0]!.handler.writeTogether!(uow, writing, this.services, this.log);
        for (const i of indexes) {
          together.add(i);
          finishes[i] = this.finishing(batch[i]!);
          if (!held.has(batch[i]!.job.id)) failures[i] = new LeaseLost();
        }
      }
      for (const [i, item] of batch.entries()) {
        if (together.has(i)) continue;
        const finish = (finishes[i] = this.finishing(item));
        if (!(await finishJob(uow, finish))) {
          failures[i] = new LeaseLost();
          continue;
        }
        await item.result.write?.(uow);
        if (finish.state === 'failed') await item.handler.gaveUp?.(uow, item.job, now, this.services);
      }
      await uow.commit();
      return { uow, failures, finishes };
    } catch (err) {
      await uow.rollback().catch(() => undefined);
      if (!isLockConflict(err)) this.log.warn({ err, jobs: batch.length }, 'writing a batch of jobs failed; writing each run in a savepoint of its own');
      return undefined;
    }
  }

  /** The batch with a savepoint per run, or per group written together, so that one run's failure or lost lease undoes only its own writes. */
  private async commitIsolated(batch: PendingCommit[], leases: Map<string, number>, now: number): Promise<Committed> {
    const failures: (unknown | undefined)[] = [];
    const finishes: ReturnType<Worker['finishing']>[] = [];
    const uow = await this.services.store.begin();
    if (leases.size > 0) uow.leaseEnqueuedJobs(this.owner, this.services.config.jobLeaseMs, leases);
    try {
      const together = await this.writeTogether(uow, batch, failures);
      for (const [i, item] of batch.entries()) {
        if (together.has(i)) continue;
        // PostgreSQL's lanes commit concurrently and a job's write locks rows (an account) until
        // the commit, so two lanes can deadlock; the victim's savepoint is undone (its locks go with
        // it) and the job is written again at once rather than spending an attempt and a backoff.
        for (let tries = 1; ; tries++) {
          try {
            await uow.savepoint(async () => {
              const finish = (finishes[i] ??= this.finishing(item));
              if (!(await finishJob(uow, finish))) throw new LeaseLost();
              await item.result.write?.(uow);
              if (finish.state === 'failed') await item.handler.gaveUp?.(uow, item.job, now, this.services);
            });
            break;
          } catch (err) {
            if (tries < 3 && isLockConflict(err)) continue;
            failures[i] = err;
            break;
          }
        }
      }
      // Hooks, list positions, COMMIT, then the after-commit signals (jobs the writes enqueued wake the workers).
      await uow.commit();
    } catch (err) {
      await uow.rollback().catch(() => undefined);
      throw err;
    }
    return { uow, failures, finishes };
  }

  /** The runs of the batch written together (see writeTogether): per kind, the indexes of two or more. */
  private togetherGroups(batch: PendingCommit[]): Map<string, number[]> {
    const byKind = new Map<string, number[]>();
    for (const [i, { result, handler, job }] of batch.entries()) {
      if (result.outcome !== 'done' || result.together === undefined || !handler.writeTogether) continue;
      const same = byKind.get(job.kind);
      if (same) same.push(i);
      else byKind.set(job.kind, [i]);
    }
    for (const [kind, indexes] of byKind) if (indexes.length < 2) byKind.delete(kind);
    return byKind;
  }

  /**
   * The slots this batch's commit may fill with the webhook deliveries its writes enqueue, inserted
   * leased to this worker and run as soon as it commits (UnitOfWork.leaseEnqueuedJobs): the free
   * delivery slots, reserved until then. None while stopping, or for a batch of deliveries.
   */
  private leaseFor(batch: PendingCommit[]): Map<string, number> {
    const leases = new Map<string, number>();
    if (this.stopped || !this.handlers.has(DELIVER_WEBHOOK_JOB) || batch.every((item) => item.job.kind === DELIVER_WEBHOOK_JOB)) return leases;
    // A run's write records an event per operation landed and one balance event per account: two each, mostly.
    const n = Math.min(this.freeSlots().get(DELIVER_WEBHOOK_JOB) ?? 0, 2 * batch.length);
    if (n <= 0) return leases;
    leases.set(DELIVER_WEBHOOK_JOB, n);
    this.reservedByKind.set(DELIVER_WEBHOOK_JOB, (this.reservedByKind.get(DELIVER_WEBHOOK_JOB) ?? 0) + n);
    return leases;
  }

  /** Gives reserved slots back (those the commit used are running by now); a claim they held back is made again. */
  private release(leases: Map<string, number>): void {
    for (const [kind, n] of leases) this.reservedByKind.set(kind, this.reservedByKind.get(kind)! - n);
    leases.clear();
    if (this.claimedShort && [...this.reservedByKind.values()].every((n) => n === 0)) {
      this.claimedShort = false;
      this.wake();
    }
  }

  /**
   * The runs of the batch that ended 'done' with a `together`, of a kind that can write many at
   * once (writeTogether), are written together in one savepoint: their leases ended in one
   * statement, their writes in one call, so a batch takes a few statements instead of several per
   * job (on PostgreSQL each is a round trip, and a landing holds its account's row lock across
   * them). If that throws (a deadlock, one run whose write fails), the savepoint is undone and they
   * are written one by one like the others. Answers the indexes written (a run whose lease was lost
   * among them gets its LeaseLost in `failures`).
   */
  private async writeTogether(uow: UnitOfWork, batch: PendingCommit[], failures: unknown[]): Promise<Set<number>> {
    const written = new Set<number>();
    for (const [kind, indexes] of this.togetherGroups(batch)) {
      const runs = indexes.map((i) => batch[i]!);
      try {
        const held = await uow.savepoint(async () => {
          const held = await finishDoneJobs(uow, this.owner, runs.map(({ job }) => ({ id: job.id, attempts: job.attempts })));
          const writing = runs.filter(({ job }) => held.has(job.id)).map(({ result }) => (result as { together: unknown }).together);
          await runs[0]!.handler.writeTogether!(uow, writing, this.services, this.log);
          return held;
        });
        for (const i of indexes) {
          written.add(i);
          if (!held.has(batch[i]!.job.id)) failures[i] = new LeaseLost();
        }
      } catch (err) {
        this.log.warn({ err, kind, jobs: runs.length }, 'writing jobs together failed; writing them one by one');
      }
    }
    return written;
  }

  /** How a run ends the job: done, failed for good, or queued again after its backoff (from the database's now). */
  private finishing({ job, handler, result }: PendingCommit) {
    const base = { id: job.id, owner: this.owner, attempts: job.attempts };
    if (result.outcome === 'done') return { ...base, state: 'done' as const, error: null };
    if (result.outcome === 'retry') {
      const delay = result.delayMs ?? retryDelayMs(job.attempts, handler.retryScheduleMs(this.services));
      if (delay !== undefined) return { ...base, state: 'queued' as const, delayMs: delay, error: result.error };
      return { ...base, state: 'failed' as const, error: `gave up after ${job.attempts} attempts: ${result.error}` };
    }
    return { ...base, state: 'failed' as const, error: result.error };
  }
}
