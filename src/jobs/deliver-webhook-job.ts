import { newId } from '../domain/shared/ids.js';
import { signingSecrets } from '../domain/platform/platform-config.js';
import type { DeliverWebhookPayload } from '../domain/webhooks/webhook-event-log.js';
import { DELIVER_WEBHOOK_JOB } from '../domain/webhooks/webhook-events.js';
import type { WebhookAttemptRow } from '../store/tables/webhooks.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import type { EventForDelivery } from '../store/webhooks-repo.js';
import { batchedLookup } from '../store/batched-lookup.js';
import { findEventsForDelivery, insertWebhookAttempt, insertWebhookAttempts, recordDeliveredJobs, recordDeliveries, recordEventAttempt, setEventState } from '../store/webhooks-repo.js';
import { retryDelayMs } from './backoff.js';
import type { JobHandler, JobServices } from './types.js';

/** Deliveries a process keeps in flight even while no endpoint answers. */
export const MIN_DELIVERIES_IN_FLIGHT = 8;

/**
 * The times of this process's latest answered deliveries (any answer or error that came back
 * before WEBHOOK_TIMEOUT_MS), at most WEBHOOK_CONCURRENCY of them, per set of services.
 */
const answered = new WeakMap<JobServices, number[]>();

function noteAnswer(services: JobServices, at: number): void {
  let times = answered.get(services);
  if (!times) answered.set(services, (times = []));
  times.push(at);
  if (times.length > services.config.webhookConcurrency) times.shift();
}

/**
 * Delivery slots: no more deliveries in flight than were answered within the last
 * WEBHOOK_TIMEOUT_MS, at least MIN_DELIVERIES_IN_FLIGHT and at most WEBHOOK_CONCURRENCY. An
 * endpoint that holds its answers back so gets a few requests at once, not WEBHOOK_CONCURRENCY:
 * what a process killed meanwhile had sent unanswered, and must send again, stays small.
 */
export function deliverySlots(services: JobServices, now = Date.now()): number {
  const { webhookConcurrency, webhookTimeoutMs } = services.config;
  const recent = (answered.get(services) ?? []).filter((t) => t > now - webhookTimeoutMs).length;
  return Math.min(webhookConcurrency, Math.max(MIN_DELIVERIES_IN_FLIGHT, recent));
}

/** Per set of services: the events of the deliveries started in one turn of the event loop are read in one statement. */
const lookups = new WeakMap<JobServices, (eventId: string) => Promise<EventForDelivery | undefined>>();

function eventLookup(services: JobServices) {
  let lookup = lookups.get(services);
  if (!lookup) {
    lookup = batchedLookup(async (ids: string[]) => new Map((await findEventsForDelivery(services.store.db, ids)).map((e) => [e.id, e])));
    lookups.set(services, lookup);
  }
  return lookup;
}

/** A delivery the endpoint accepted: its attempt, and when its answer came. */
interface Delivered {
  attempt: WebhookAttemptRow;
  at: number;
}

/** Records accepted deliveries: their attempts, and their events DELIVERED (a few statements for any number). */
async function writeDelivered(uow: UnitOfWork, delivered: readonly Delivered[]): Promise<void> {
  await insertWebhookAttempts(uow.db, delivered.map((d) => d.attempt));
  await recordDeliveries(uow, delivered.map((d) => ({ eventId: d.attempt.event_id, at: d.at })));
}

/**
 * Delivers one event: POSTs its stored body, signed, to the platform's endpoint, and records the
 * attempt with the job's outcome. Failures retry on WEBHOOK_RETRY_SCHEDULE (with jitter); the
 * event is FAILED once it is spent. No endpoint: the event is marked WEBHOOK_ENDPOINT_NOT_SET and
 * waits for a redelivery.
 */
export const webhookDeliveryHandler: JobHandler = {
  kind: DELIVER_WEBHOOK_JOB,
  // Deliveries wait on the network, not the CPU: they get their own, larger pool of slots, as
  // many as endpoints have lately been answering (deliverySlots).
  concurrency: (services) => deliverySlots(services),
  retryScheduleMs: (services) => services.config.webhookRetryScheduleMs,
  async run(job, services, log) {
    const { eventId, platformId, redeliver } = JSON.parse(job.payload) as DeliverWebhookPayload;
    const found = await eventLookup(services)(eventId);
    const event = found?.platform_id === platformId ? found : undefined;
    if (!event) {
      log.warn({ jobId: job.id, eventId }, 'webhook event to deliver does not exist');
      return { outcome: 'done' };
    }
    // A redelivery got there first; an automatic retry has nothing left to do.
    if (!redeliver && event.delivery_state === 'DELIVERED') return { outcome: 'done' };
    if (!event.webhook_endpoint || !event.secret) {
      return { outcome: 'done', write: (uow) => setEventState(uow.db, eventId, 'WEBHOOK_ENDPOINT_NOT_SET', Date.now()) };
    }
    // A platform configured before key pairs existed gets its key pair on first use.
    const signingKey = event.signing_private_key ?? (await services.platformConfig.load(platformId)).signing_private_key;

    const at = Date.now();
    const secrets = signingSecrets({ secret: event.secret, previous_secret: event.previous_secret, previous_secret_expires_at: event.previous_secret_expires_at }, at);
    const url = event.webhook_endpoint;
    const sent = await services.sendWebhook({ url, id: event.id, body: event.body, secrets, signingKey, now: new Date(at) });
    const attempt: WebhookAttemptRow = {
      id: newId('WebhookAttempt'),
      event_id: eventId,
      platform_id: platformId,
      attempted_at: at,
      url,
      response_status: sent.status ?? null,
      latency_ms: sent.latencyMs,
      error: sent.error ?? null,
      response_excerpt: sent.responseExcerpt ?? null,
    };
    const done = Date.now();
    if (sent.latencyMs < services.config.webhookTimeoutMs) noteAnswer(services, done);
    if (sent.ok) {
      const delivered: Delivered = { attempt, at: done };
      return { outcome: 'done', write: (uow) => writeDelivered(uow, [delivered]), together: delivered };
    }
    const delayMs = retryDelayMs(job.attempts, services.config.webhookRetryScheduleMs);
    const write = async (uow: UnitOfWork) => {
      await insertWebhookAttempt(uow.db, attempt);
      await recordEventAttempt(uow.db, eventId, delayMs === undefined ? { state: 'FAILED', at: done, nextAttemptAt: null } : { state: 'PENDING', at: done, nextAttemptAt: done + delayMs });
    };
    if (delayMs === undefined) return { outcome: 'failed', error: `gave up after ${job.attempts} attempts: ${sent.error}`, write };
    return { outcome: 'retry', error: sent.error ?? 'delivery failed', delayMs, write };
  },
  writeTogether: (uow, runs) => writeDelivered(uow, runs as Delivered[]),
  // PostgreSQL: a batch of accepted deliveries and the ends of their jobs in one statement, no transaction around it.
  commitTogether: (store, owner, runs) =>
    recordDeliveredJobs(store, owner, runs.map(({ job, together }) => ({ jobId: job.id, attempts: job.attempts, ...(together as Delivered) }))),
  // A delivery job spent by errors (a throw, a commit that failed) leaves its event FAILED, not PENDING for good.
  async gaveUp(uow, job, now) {
    const { eventId } = JSON.parse(job.payload) as DeliverWebhookPayload;
    await setEventState(uow.db, eventId, 'FAILED', now);
  },
};
