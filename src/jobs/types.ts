import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { BulkImportService } from '../domain/customers/bulk-imports.js';
import type { PlatformConfigService } from '../domain/platform/platform-config.js';
import type { PlatformClock } from '../domain/platform/platform-clock.js';
import type { SendWebhook } from '../domain/webhooks/webhook-sending.js';
import type { Store } from '../store/store.js';
import type { JobRow } from '../store/tables/jobs.js';
import type { UnitOfWork } from '../store/unit-of-work.js';

/**
 * What a job handler may use: the process's settings, reads, platform configs and outbound
 * webhooks. Nothing here opens a unit of work, so a run's database effects can only go in its
 * result's `write`, which is given the worker's batch: a job's writes never escape it.
 */
export interface JobServices {
  config: Config;
  store: Pick<Store, 'db' | 'read'>;
  platformConfig: Pick<PlatformConfigService, 'load'>;
  /** Each platform's sandbox clock: what a landing stamps. */
  clock: Pick<PlatformClock, 'now' | 'due'>;
  sendWebhook: SendWebhook;
  /** The bulk customer import's batches, written in the worker's batch commit. */
  bulkImports: Pick<BulkImportService, 'importBatch'>;
}

/** A run's database effects, written in the worker's batch (its unit of work) with the end of the job's lease. */
export type JobWrite = (uow: UnitOfWork) => Promise<void>;

/** What a handler asks the worker to commit, atomically with ending the job's lease. */
export type JobResult =
  | {
      outcome: 'done';
      write?: JobWrite;
      /** What the handler's writeTogether needs to make this run's write together with others (absent: the run is written alone). */
      together?: unknown;
    }
  | { outcome: 'retry'; error: string; delayMs?: number; write?: JobWrite }
  | { outcome: 'failed'; error: string; write?: JobWrite };

export interface JobHandler {
  kind: string;
  /** How many jobs of this kind one process runs at once; JOB_CONCURRENCY when absent. */
  concurrency?(services: JobServices): number;
  /** Retry delays after a thrown error or a 'retry' result without its own delay. */
  retryScheduleMs(services: JobServices): readonly number[];
  /**
   * Runs outside any transaction (an HTTP call may happen here). Database effects go in the
   * result's `write`, which the worker commits together with finishing the job, only if this
   * worker still holds the lease: a job's effects land exactly once.
   */
  run(job: JobRow, services: JobServices, log: Logger): Promise<JobResult>;
  /**
   * Makes the writes of several runs of this kind that ended 'done' at once, from their results'
   * `together`: the same effects as their `write`s one after another, in this order, in fewer
   * statements. The worker uses it for the runs of a batch commit that have a `together`, and
   * falls back to each run's `write` (each in its own savepoint) if it throws, so one bad run
   * still fails alone.
   */
  writeTogether?(uow: UnitOfWork, runs: readonly unknown[], services: JobServices, log: Logger): Promise<void>;
  /**
   * Commits several runs of this kind that ended 'done' with a `together` without a unit of work:
   * their writes and the ends of their jobs (only those whose lease `owner` still holds) in one
   * statement. Answers the ids of the jobs it ended, or undefined where the engine has no such
   * statement (the worker then commits them the usual way, as it does if this throws).
   */
  commitTogether?(store: Pick<Store, 'db' | 'engine'>, owner: string, runs: readonly { job: Pick<JobRow, 'id' | 'attempts'>; together: unknown }[]): Promise<Set<string> | undefined>;
  /**
   * Writes, in the commit that fails the job for good, what a failed job means for its subject,
   * whatever ended it: a 'failed' result, or a last retry that threw or could not commit its write.
   * `now` is real time; a write for a platform stamps with `services.clock` instead.
   */
  gaveUp?(uow: UnitOfWork, job: JobRow, now: number, services: JobServices): Promise<void>;
}
