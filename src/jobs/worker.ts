import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Services } from '../domain/services.js';
import type { Logger } from '../logger.js';
import { claimDueJobs, finishJob } from '../store/jobs-repo.js';
import { assignListPositions, carryListPositions } from '../store/list-clock.js';
import type { JobRow } from '../store/tables/jobs.js';
import { retryDelayMs } from './backoff.js';
import type { JobHandler, JobResult } from './types.js';

class LeaseLost extends Error {}

interface PendingCommit {
  job: JobRow;
  handler: JobHandler;
  result: JobResult;
  resolve(): void;
  reject(err: unknown): void;
}

const MAX_COMMIT_BATCH = 128;

/**
 * Claims due jobs with a lease and runs them, up to `concurrency` at a time. Polls, and wakes at
 * once when this process enqueues. stop() claims nothing more and waits for running jobs.
 */
export class Worker {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly handlers: Map<string, JobHandler>;
  private readonly running = new Set<Promise<void>>();
  private readonly runningByKind = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;
  private readonly pendingCommits: PendingCommit[] = [];
  private committing = false;

  constructor(
    private readonly services: Services,
    handlers: JobHandler[],
    private readonly log: Logger,
  ) {
    this.handlers = new Map(handlers.map((h) => [h.kind, h]));
  }

  start(): this {
    this.services.jobSignal.on('enqueued', this.wake);
    this.wake();
    return this;
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
    this.services.jobSignal.off('enqueued', this.wake);
    clearTimeout(this.timer);
    while (this.ticking || this.running.size > 0) await Promise.race([...this.running, new Promise((r) => setTimeout(r, 10))]);
  }

  /** Free slots per kind: each kind has its own limit, so slow webhook endpoints never starve simulations. */
  private freeSlots(): Map<string, number> {
    const free = new Map<string, number>();
    for (const [kind, handler] of this.handlers) {
      free.set(kind, (handler.concurrency?.(this.services) ?? this.services.config.jobConcurrency) - (this.runningByKind.get(kind) ?? 0));
    }
    return free;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.ticking = true;
    let claimedAll = false;
    let anyFree = false;
    try {
      const { config, store } = this.services;
      claimedAll = true;
      for (const [kind, free] of this.freeSlots()) {
        if (free <= 0) continue;
        anyFree = true;
        const jobs = await claimDueJobs(store.db, store.engine, { owner: this.owner, kinds: [kind], now: Date.now(), leaseMs: config.jobLeaseMs, limit: free });
        // A full claim means more may be due right now.
        if (jobs.length < free) claimedAll = false;
        for (const job of jobs) this.track(job.kind, this.execute(job));
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
      this.timer = setTimeout(() => void this.tick(), this.services.config.jobPollMs);
    }
  }

  private track(kind: string, p: Promise<void>): void {
    this.running.add(p);
    this.runningByKind.set(kind, (this.runningByKind.get(kind) ?? 0) + 1);
    void p.finally(() => {
      this.running.delete(p);
      this.runningByKind.set(kind, this.runningByKind.get(kind)! - 1);
      this.wake();
    });
  }

  private async execute(job: JobRow): Promise<void> {
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
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.log.warn({ jobId: job.id }, 'job lease lost before commit; its new owner will run it');
        return;
      }
      // The effects were rolled back; record the failure so the job retries on schedule.
      this.log.error({ err, jobId: job.id, kind: job.kind }, 'job commit failed');
      await this.commit(job, handler, { outcome: 'retry', error: err instanceof Error ? err.message : String(err) }).catch((e2: unknown) =>
        this.log.error({ err: e2, jobId: job.id }, 'job retry could not be recorded; its lease will expire'),
      );
    }
  }

  /** Queues a finished run for the next group commit and resolves once it is durable. */
  private commit(job: JobRow, handler: JobHandler, result: JobResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pendingCommits.push({ job, handler, result, resolve, reject });
      void this.flushCommits();
    });
  }

  /**
   * Group commit: every run finished since the last commit goes into one transaction, each inside
   * its own savepoint, so one job's failure or lost lease rolls back only that job. One commit per
   * batch instead of per job is most of the worker's throughput on SQLite.
   */
  private async flushCommits(): Promise<void> {
    if (this.committing) return;
    this.committing = true;
    try {
      while (this.pendingCommits.length > 0) await this.commitBatch(this.pendingCommits.splice(0, MAX_COMMIT_BATCH));
    } finally {
      this.committing = false;
    }
  }

  private async commitBatch(batch: PendingCommit[]): Promise<void> {
    const now = Date.now();
    const failures: (unknown | undefined)[] = [];
    try {
      const trx = await this.services.store.db.startTransaction().execute();
      try {
        for (const [i, item] of batch.entries()) {
          const sp = await trx.savepoint(`job${i}`).execute();
          try {
            const finish = this.finishing(item, now);
            if (!(await finishJob(sp, finish))) throw new LeaseLost();
            await item.result.write?.(sp);
            if (finish.state === 'failed') await item.handler.gaveUp?.(sp, item.job, now);
            await sp.releaseSavepoint(`job${i}`).execute();
            carryListPositions(sp, trx);
          } catch (err) {
            await sp.rollbackToSavepoint(`job${i}`).execute();
            failures[i] = err;
          }
        }
        await assignListPositions(trx);
        await trx.commit().execute();
      } catch (err) {
        await trx.rollback().execute().catch(() => undefined);
        throw err;
      }
    } catch (err) {
      for (const item of batch) item.reject(err);
      return;
    }
    for (const [i, item] of batch.entries()) {
      if (failures[i] !== undefined) item.reject(failures[i]);
      else {
        if (item.result.outcome !== 'done' && this.finishing(item, now).state === 'failed') {
          this.log.error({ jobId: item.job.id, kind: item.job.kind, error: item.result.error }, 'job failed for good');
        }
        item.resolve();
      }
    }
  }

  /** How a run ends the job: done, failed for good, or queued again after its backoff. */
  private finishing({ job, handler, result }: PendingCommit, now: number) {
    const base = { id: job.id, owner: this.owner, now, attempts: job.attempts };
    if (result.outcome === 'done') return { ...base, state: 'done' as const, runAt: now, error: null };
    if (result.outcome === 'retry') {
      const delay = result.delayMs ?? retryDelayMs(job.attempts, handler.retryScheduleMs(this.services));
      if (delay !== undefined) return { ...base, state: 'queued' as const, runAt: now + delay, error: result.error };
      return { ...base, state: 'failed' as const, runAt: now, error: `gave up after ${job.attempts} attempts: ${result.error}` };
    }
    return { ...base, state: 'failed' as const, runAt: now, error: result.error };
  }
}
