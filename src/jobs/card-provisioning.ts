import { CARD_PROVISIONING_JOB, landCardProvisioning, type CardProvisioningJob } from '../domain/cards/card-lifecycle.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Makes new sandbox cards ACTIVE, in the worker's batch. */
export const cardProvisioningHandler: JobHandler = {
  kind: CARD_PROVISIONING_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as CardProvisioningJob;
    const now = await services.clock.now(payload.platformId);
    return { outcome: 'done', write: (uow) => landCardProvisioning(uow, payload, now) };
  },
};
