import { CARD_SIMULATION_JOB } from '../../src/domain/cards/card-simulations.js';
import type { Services } from '../../src/services.js';
import { cardProvisioningHandler } from '../../src/jobs/card-provisioning.js';
import { cardSimulationHandler } from '../../src/jobs/card-simulation.js';
import type { JobHandler } from '../../src/jobs/types.js';
import { Worker } from '../../src/jobs/worker.js';
import type { Logger } from '../../src/logger.js';
import type { Executor } from '../../src/store/store.js';

const SILENT: Logger = { info() {}, warn() {}, error() {} };

export async function queuedJobs(db: Executor, kind: string): Promise<number> {
  const r = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', '=', kind)
    .where('state', '=', 'queued')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export const queuedCardJobs = (db: Executor) => queuedJobs(db, CARD_SIMULATION_JOB);

/** Runs a worker with only `handler` until no job of its kind is queued. */
export async function drainJobs(services: Services, log: Logger, handler: JobHandler, timeoutMs = 20_000): Promise<void> {
  const worker = new Worker(services, [handler], log).start();
  const deadline = Date.now() + timeoutMs;
  try {
    while ((await queuedJobs(services.store.db, handler.kind)) > 0) {
      if (Date.now() > deadline) throw new Error(`${handler.kind} jobs did not drain`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await worker.stop();
  }
}

/** Runs a worker with only the card simulation handler until no card simulation job is queued. */
export const drainCardJobs = (services: Services, log: Logger, timeoutMs = 20_000) => drainJobs(services, log, cardSimulationHandler, timeoutMs);

/** Runs the provisioning jobs of new sandbox cards (PROCESSING -> ACTIVE) until none is queued. */
export const provisionCards = (services: Services, log: Logger = SILENT) => drainJobs(services, log, cardProvisioningHandler);
