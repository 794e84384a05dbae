import { KYC_AUTO_APPROVAL_JOB, landKycAutoApproval, type KycAutoApprovalJob } from '../domain/customers/kyc.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Approves new sandbox customers' KYC/KYB once their delay has passed, in the worker's batch. */
export const kycAutoApprovalHandler: JobHandler = {
  kind: KYC_AUTO_APPROVAL_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as KycAutoApprovalJob;
    const now = await services.clock.now(payload.platformId);
    return { outcome: 'done', write: (uow) => landKycAutoApproval(uow, payload, now) };
  },
};
