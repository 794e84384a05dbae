import { EXTERNAL_ACCOUNT_REVIEW_JOB, landExternalAccountReview, type ExternalAccountReviewJob } from '../domain/external-accounts/external-account-lifecycle.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Ends a sandbox external account's PENDING name verification or LIVENESS challenge once its delay has passed, in the worker's batch. */
export const externalAccountReviewHandler: JobHandler = {
  kind: EXTERNAL_ACCOUNT_REVIEW_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as ExternalAccountReviewJob;
    const now = await services.clock.now(payload.platformId);
    return { outcome: 'done', write: (uow) => landExternalAccountReview(uow, payload, now) };
  },
};
