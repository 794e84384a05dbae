import { CARD_SIMULATION_JOB, landOperations, type CardSimulationJob } from '../domain/cards/card-simulations.js';
import type { Services } from '../services.js';
import type { Logger } from '../logger.js';
import type { Trx } from '../store/store.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

const land = (trx: Trx, jobs: readonly CardSimulationJob[], services: Services, log: Logger) =>
  landOperations(trx, services.store.engine, jobs, log, { delayedPullMs: services.config.sandboxDelayedPullMs });

/** Lands accepted card simulations; all of the work happens in the worker's commit transaction, a batch of them at once. */
export const cardSimulationHandler: JobHandler = {
  kind: CARD_SIMULATION_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services, log) {
    const payload = JSON.parse(job.payload) as CardSimulationJob;
    return { outcome: 'done', write: (trx) => land(trx, [payload], services, log), together: payload };
  },
  writeTogether: (trx, runs, services, log) => land(trx, runs as CardSimulationJob[], services, log),
};
