import { CARD_PROVISIONING_JOB, landCardProvisioning, type CardProvisioningJob } from '../domain/cards/card-lifecycle.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Makes new sandbox cards ACTIVE, in the worker's commit transaction. */
export const cardProvisioningHandler: JobHandler = {
  kind: CARD_PROVISIONING_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as CardProvisioningJob;
    return { outcome: 'done', write: (trx) => landCardProvisioning(trx, services.store.engine, payload) };
  },
};
