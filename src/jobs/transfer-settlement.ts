import { landTransfer, TRANSFER_SETTLEMENT_JOB, type TransferSettlementJob } from '../domain/payments/payment-lifecycle.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Lands a PENDING transfer in or out (COMPLETED or FAILED, as its outcome says) in the worker's batch, stamped with the platform's clock. */
export const transferSettlementHandler: JobHandler = {
  kind: TRANSFER_SETTLEMENT_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as TransferSettlementJob;
    const now = await services.clock.now(payload.platformId);
    return { outcome: 'done', write: (uow) => landTransfer(uow, payload, now) };
  },
};
