import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../domain/services.js';
import { cardSimulationHandler } from './card-simulation.js';
import type { JobHandler } from './types.js';
import { webhookDeliveryHandler } from './webhook-delivery.js';
import { Worker } from './worker.js';

/** Every kind of background job this service runs. */
export const jobHandlers: JobHandler[] = [cardSimulationHandler, webhookDeliveryHandler];

export function startWorker(services: Services, log: FastifyBaseLogger, handlers: JobHandler[] = jobHandlers): Worker {
  return new Worker(services, handlers, log).start();
}
