import { CARD_SIMULATION_JOB, landOperations, type CardSimulationJob } from '../domain/card-simulations.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Lands accepted card simulations; all of the work happens in the worker's commit transaction. */
export const cardSimulationHandler: JobHandler = {
  kind: CARD_SIMULATION_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services, log) {
    const payload = JSON.parse(job.payload) as CardSimulationJob;
    return { outcome: 'done', write: (trx) => landOperations(trx, services.store.engine, payload, log, { delayedPullMs: services.config.sandboxDelayedPullMs }) };
  },
};
