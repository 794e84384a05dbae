import { landCardIssuance, type CardIssuanceJob } from '../domain/cards/card-issuance.js';
import { CARD_PROVISIONING_JOB } from '../domain/cards/card-lifecycle.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Delivers the sandbox issuer's answer to a new card (ACTIVE, or CLOSED ISSUER_REJECTED), in the worker's batch. */
export const cardProvisioningHandler: JobHandler = {
  kind: CARD_PROVISIONING_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as CardIssuanceJob;
    const now = await services.clock.now(payload.platformId);
    return { outcome: 'done', write: (uow) => landCardIssuance(uow, payload, now) };
  },
};
