import type { Services } from '../services.js';
import type { Logger } from '../logger.js';
import type { Trx } from '../store/store.js';
import type { JobRow } from '../store/tables/jobs.js';

/** What a handler asks the worker to commit, atomically with ending the job's lease. */
export type JobResult =
  | {
      outcome: 'done';
      write?: (trx: Trx) => Promise<void>;
      /** What the handler's writeTogether needs to make this run's write together with others (absent: the run is written alone). */
      together?: unknown;
    }
  | { outcome: 'retry'; error: string; delayMs?: number; write?: (trx: Trx) => Promise<void> }
  | { outcome: 'failed'; error: string; write?: (trx: Trx) => Promise<void> };

export interface JobHandler {
  kind: string;
  /** How many jobs of this kind one process runs at once; JOB_CONCURRENCY when absent. */
  concurrency?(services: Services): number;
  /** Retry delays after a thrown error or a 'retry' result without its own delay. */
  retryScheduleMs(services: Services): readonly number[];
  /**
   * Runs outside any transaction (an HTTP call may happen here). Database effects go in the
   * result's `write`, which the worker commits together with finishing the job, only if this
   * worker still holds the lease: a job's effects land exactly once.
   */
  run(job: JobRow, services: Services, log: Logger): Promise<JobResult>;
  /**
   * Makes the writes of several runs of this kind that ended 'done' at once, from their results'
   * `together`: the same effects as their `write`s one after another, in this order, in fewer
   * statements. The worker uses it for the runs of a batch commit that have a `together`, and
   * falls back to each run's `write` (each in its own savepoint) if it throws, so one bad run
   * still fails alone.
   */
  writeTogether?(trx: Trx, runs: readonly unknown[], services: Services, log: Logger): Promise<void>;
  /**
   * Writes, in the commit that fails the job for good, what a failed job means for its subject,
   * whatever ended it: a 'failed' result, or a last retry that threw or could not commit its write.
   */
  gaveUp?(trx: Trx, job: JobRow, now: number): Promise<void>;
}
