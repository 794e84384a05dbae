import type { Services } from '../services.js';
import type { Logger } from '../logger.js';
import { bulkImportHandler } from './bulk-import.js';
import { cardProvisioningHandler } from './card-provisioning.js';
import { cardSimulationHandler } from './card-simulation.js';
import { webhookDeliveryHandler } from './deliver-webhook-job.js';
import { externalAccountReviewHandler } from './external-account-review.js';
import { resendWebhooksHandler } from './resend-webhooks-job.js';
import { transferSettlementHandler } from './transfer-settlement.js';
import type { JobHandler } from './types.js';
import { Worker } from './worker.js';

/** Every kind of background job this service runs. */
export const jobHandlers: JobHandler[] = [cardSimulationHandler, cardProvisioningHandler, externalAccountReviewHandler, transferSettlementHandler, bulkImportHandler, webhookDeliveryHandler, resendWebhooksHandler];

export function startWorker(services: Services, log: Logger, handlers: JobHandler[] = jobHandlers): Worker {
  return new Worker(services, handlers, log).start();
}
