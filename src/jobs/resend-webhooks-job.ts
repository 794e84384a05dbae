import { queueResendBatch, RESEND_WEBHOOKS_JOB, type ResendPayload } from '../domain/webhooks/webhook-resends.js';
import { INTERNAL_RETRY_SCHEDULE_MS } from './backoff.js';
import type { JobHandler } from './types.js';

/** Queues the deliveries of a bulk resend (recover, replay-missing), a batch per run, to the platform's endpoint of the moment. */
export const resendWebhooksHandler: JobHandler = {
  kind: RESEND_WEBHOOKS_JOB,
  retryScheduleMs: () => INTERNAL_RETRY_SCHEDULE_MS,
  async run(job, services) {
    const payload = JSON.parse(job.payload) as ResendPayload;
    const { webhook_endpoint } = await services.platformConfig.load(payload.platformId);
    return { outcome: 'done', write: async (uow) => void (await queueResendBatch(uow, payload, webhook_endpoint, Date.now())) };
  },
};
