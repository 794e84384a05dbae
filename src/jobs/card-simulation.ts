import { CARD_SIMULATION_JOB, landOperations, type CardSimulationJob } from '../domain/cards/card-simulations.js';
import type { Logger } from '../logger.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler, JobServices } from './types.js';

/** Lands each platform's jobs at that platform's time (a batch is almost always one platform's). */
async function land(uow: UnitOfWork, jobs: readonly CardSimulationJob[], services: JobServices, log: Logger): Promise<void> {
  const byPlatform = new Map<string, CardSimulationJob[]>();
  for (const job of jobs) byPlatform.set(job.platformId, [...(byPlatform.get(job.platformId) ?? []), job]);
  for (const [platformId, mine] of byPlatform) {
    await landOperations(uow, mine, log, { delayedPullMs: services.config.sandboxDelayedPullMs, now: await services.clock.now(platformId, uow) });
  }
}

/** Lands accepted card simulations; all of the work happens in the worker's batch, a batch of them at once. */
export const cardSimulationHandler: JobHandler = {
  kind: CARD_SIMULATION_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services, log) {
    const payload = JSON.parse(job.payload) as CardSimulationJob;
    return { outcome: 'done', write: (uow) => land(uow, [payload], services, log), together: payload };
  },
  writeTogether: (uow, runs, services, log) => land(uow, runs as CardSimulationJob[], services, log),
};
