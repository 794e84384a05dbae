import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../domain/services.js';
import { claimDueJobs, finishJob } from '../store/jobs-repo.js';
import type { JobRow } from '../store/tables/jobs.js';
import { retryDelayMs } from './backoff.js';
import type { JobHandler, JobResult } from './types.js';

class LeaseLost extends Error {}

/**
 * Claims due jobs with a lease and runs them, up to `concurrency` at a time. Polls, and wakes at
 * once when this process enqueues. stop() claims nothing more and waits for running jobs.
 */
export class Worker {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly handlers: Map<string, JobHandler>;
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly services: Services,
    handlers: JobHandler[],
    private readonly log: FastifyBaseLogger,
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

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.ticking = true;
    let claimed = 0;
    try {
      const { config, store } = this.services;
      const capacity = config.jobConcurrency - this.running.size;
      if (capacity > 0) {
        const jobs = await claimDueJobs(store.db, store.engine, {
          owner: this.owner,
          kinds: [...this.handlers.keys()],
          now: Date.now(),
          leaseMs: config.jobLeaseMs,
          limit: capacity,
        });
        claimed = jobs.length;
        for (const job of jobs) this.track(this.execute(job));
      }
    } catch (err) {
      this.log.error({ err }, 'job claim failed');
    } finally {
      this.ticking = false;
    }
    if (this.stopped) return;
    const full = this.running.size >= this.services.config.jobConcurrency;
    if (this.again || (claimed > 0 && !full)) {
      this.again = false;
      this.wake();
    } else if (!full) {
      this.timer = setTimeout(() => void this.tick(), this.services.config.jobPollMs);
    }
  }

  private track(p: Promise<void>): void {
    this.running.add(p);
    void p.finally(() => {
      this.running.delete(p);
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

  private async commit(job: JobRow, handler: JobHandler, result: JobResult): Promise<void> {
    const now = Date.now();
    let state: 'queued' | 'done' | 'failed' = result.outcome === 'done' ? 'done' : 'failed';
    let runAt = now;
    let error: string | null = result.outcome === 'done' ? null : result.error;
    if (result.outcome === 'retry') {
      const delay = result.delayMs ?? retryDelayMs(job.attempts, handler.retryScheduleMs(this.services));
      if (delay !== undefined) {
        state = 'queued';
        runAt = now + delay;
      } else {
        error = `gave up after ${job.attempts} attempts: ${result.error}`;
      }
    }
    await this.services.store.db.transaction().execute(async (trx) => {
      if (!(await finishJob(trx, { id: job.id, owner: this.owner, now, state, runAt, error, attempts: job.attempts }))) throw new LeaseLost();
      await result.write?.(trx);
    });
    if (state === 'failed') this.log.error({ jobId: job.id, kind: job.kind, error }, 'job failed for good');
  }
}
