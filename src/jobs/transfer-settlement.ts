import { landTransfer, landTransfers, TRANSFER_SETTLEMENT_JOB, type TransferSettlementJob } from '../domain/payments/payment-lifecycle.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler, JobServices } from './types.js';

/** Lands each platform's jobs at that platform's time (a batch is almost always one platform's). */
async function land(uow: UnitOfWork, jobs: readonly TransferSettlementJob[], services: JobServices): Promise<void> {
  const byPlatform = new Map<string, TransferSettlementJob[]>();
  for (const job of jobs) byPlatform.set(job.platformId, [...(byPlatform.get(job.platformId) ?? []), job]);
  for (const [platformId, mine] of byPlatform) await landTransfers(uow, mine, await services.clock.now(platformId, uow));
}

/**
 * Lands a PENDING transfer in or out (COMPLETED or FAILED, as its outcome says) in the worker's
 * batch, stamped with the platform's clock; the batch's landings together (landTransfers: a dozen
 * statements for the lot instead of about ten each, see there).
 */
export const transferSettlementHandler: JobHandler = {
  kind: TRANSFER_SETTLEMENT_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as TransferSettlementJob;
    const now = await services.clock.now(payload.platformId);
    return { outcome: 'done', write: (uow) => landTransfer(uow, payload, now), together: payload };
  },
  writeTogether: (uow, runs, services) => land(uow, runs as TransferSettlementJob[], services),
};
