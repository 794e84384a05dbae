import type { Selectable } from 'kysely';
import type { Database } from '../../store/database.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import type { SortOrder } from '../../store/page.js';
import type { Store } from '../../store/store.js';
import type { DeliveryState } from '../../store/tables/webhook-events.js';
import type { WebhookAttemptRow } from '../../store/tables/webhooks.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { findWebhookEventRow, listWebhookAttempts, listWebhookEvents, setEventState } from '../../store/webhooks-repo.js';
import { NotFoundError, WebhookDeliveryError, WebhookEndpointNotSetError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Cursors, Page } from '../shared/pagination.js';
import { signingSecrets, type PlatformConfigService } from '../platform/platform-config.js';
import { DELIVER_WEBHOOK_JOB } from './webhook-events.js';
import type { SendWebhook } from './webhook-sending.js';
import type { PlatformClock } from '../platform/platform-clock.js';

export const DELIVERY_STATES: DeliveryState[] = ['PENDING', 'DELIVERED', 'FAILED', 'WEBHOOK_ENDPOINT_NOT_SET'];
export const TEST_EVENT_TYPE = 'TEST';

/** What the delivery job carries; `redeliver` marks a delivery a platform asked for. */
export interface DeliverWebhookPayload {
  eventId: string;
  platformId: string;
  redeliver?: boolean;
}

type EventRow = Selectable<Database['webhook_events']>;

export interface WebhookEventView {
  id: string;
  type: string;
  deliveryState: DeliveryState;
  attemptCount: number;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
  deliveredAt?: string;
  createdAt: string;
  updatedAt: string;
  /** The delivered body, parsed. */
  payload: Record<string, unknown>;
}

export interface WebhookAttemptView {
  id: string;
  attemptedAt: string;
  url: string;
  responseStatus?: number;
  latencyMs: number;
  error?: string;
  responseBody?: string;
}

/** The test webhook's outcome, named as the interface names it. */
export interface TestWebhookResult {
  url: string;
  response_status: number;
  response_body?: string;
}

const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

function renderEvent(row: EventRow): WebhookEventView {
  const out: WebhookEventView = {
    id: row.id,
    type: row.type,
    deliveryState: row.delivery_state,
    attemptCount: row.attempt_count,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    payload: JSON.parse(row.body) as Record<string, unknown>,
  };
  const last = iso(row.last_attempt_at);
  const next = row.delivery_state === 'PENDING' ? iso(row.next_attempt_at) : undefined;
  const delivered = iso(row.delivered_at);
  if (last) out.lastAttemptAt = last;
  if (next) out.nextAttemptAt = next;
  if (delivered) out.deliveredAt = delivered;
  return out;
}

function renderAttempt(row: WebhookAttemptRow): WebhookAttemptView {
  const out: WebhookAttemptView = { id: row.id, attemptedAt: new Date(row.attempted_at).toISOString(), url: row.url, latencyMs: row.latency_ms };
  if (row.response_status !== null) out.responseStatus = row.response_status;
  if (row.error !== null) out.error = row.error;
  if (row.response_excerpt !== null) out.responseBody = row.response_excerpt;
  return out;
}

/** The platform's event log: list, inspect and redeliver events; send a test event. */
export class WebhookEventLog {
  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
    private readonly platformConfig: PlatformConfigService,
    // Injected: the outbound HTTP lives in jobs/, so the domain stays free of I/O and of the jobs layer.
    private readonly sendWebhook: SendWebhook,
    private readonly clock: PlatformClock,
  ) {}

  /** Oldest first unless `sortOrder` is desc (the console shows the newest first, where new events appear). */
  async list(platformId: string, limit: number, cursor: string | undefined, filter: { type?: string; deliveryState?: DeliveryState; sortOrder?: SortOrder }): Promise<Page<WebhookEventView>> {
    const order = filter.sortOrder ?? 'asc';
    const scope = `webhook-events:${platformId}:${filter.type ?? ''}:${filter.deliveryState ?? ''}${order === 'desc' ? ':desc' : ''}`;
    const q = this.cursors.query(scope, limit, cursor, order);
    const { rows, total } = await listWebhookEvents(this.store.db, platformId, q, filter);
    return this.cursors.page(scope, q, rows, total, renderEvent);
  }

  async get(platformId: string, id: string): Promise<WebhookEventView & { attempts: WebhookAttemptView[] }> {
    const row = await findWebhookEventRow(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('WebhookEvent', id);
    const attempts = await listWebhookAttempts(this.store.db, id);
    return { ...renderEvent(row), attempts: attempts.map(renderAttempt) };
  }

  /**
   * Queues a new delivery of the same event (same id, same body, a fresh retry schedule). Refused
   * with WebhookEndpointNotSetError while no endpoint is configured. `within`: the request's unit of
   * work, when it has one (an Idempotency-Key).
   */
  async redeliver(platformId: string, id: string, within?: UnitOfWork): Promise<WebhookEventView> {
    const row = await findWebhookEventRow((within ?? this.store).db, platformId, id);
    if (!row) throw new NotFoundError('WebhookEvent', id);
    const config = await this.platformConfig.load(platformId, within);
    if (!config.webhook_endpoint) throw new WebhookEndpointNotSetError();
    const now = Date.now();
    const payload: DeliverWebhookPayload = { eventId: id, platformId, redeliver: true };
    await this.store.transaction(async (uow) => {
      await setEventState(uow.db, id, 'PENDING', now);
      await enqueueJob(uow, { id: newId('Job'), kind: DELIVER_WEBHOOK_JOB, payload }, now);
    }, within);
    return renderEvent({ ...row, delivery_state: 'PENDING', next_attempt_at: now, updated_at: now });
  }

  /**
   * Sends a signed TEST event now, outside the log and without retries, and reports the endpoint's
   * answer; like any delivery, a 2xx or a 409 counts as received.
   */
  async sendTest(platformId: string, within?: UnitOfWork): Promise<TestWebhookResult> {
    const config = await this.platformConfig.load(platformId, within);
    if (!config.webhook_endpoint) throw new WebhookEndpointNotSetError();
    const now = new Date();
    const id = newId('Webhook');
    // The event's time is the platform's clock; its signatures' (webhook-timestamp) the real time of sending.
    const body = JSON.stringify({ id, type: TEST_EVENT_TYPE, timestamp: new Date(await this.clock.now(platformId)).toISOString(), data: {} });
    const url = config.webhook_endpoint;
    const secrets = signingSecrets(config, now.getTime());
    const outcome = await this.sendWebhook({ url, id, body, secrets, signingKey: config.signing_private_key, now });
    if (!outcome.ok || outcome.status === undefined) {
      const details: Record<string, unknown> = { url, webhookId: id, error: outcome.error };
      if (outcome.status !== undefined) details.response_status = outcome.status;
      if (outcome.responseExcerpt !== undefined) details.response_body = outcome.responseExcerpt;
      throw new WebhookDeliveryError(`The webhook endpoint did not accept the test event: ${outcome.error}`, details);
    }
    const result: TestWebhookResult = { url, response_status: outcome.status };
    if (outcome.responseExcerpt !== undefined) result.response_body = outcome.responseExcerpt;
    return result;
  }
}
