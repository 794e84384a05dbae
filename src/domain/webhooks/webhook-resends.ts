import { enqueueJob, enqueueJobs } from '../../store/jobs-repo.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { countResendable, findResendableIds, setEventsPending, type ResendMode, type ResendSelection } from '../../store/webhook-resends-repo.js';
import { ValidationError, WebhookEndpointNotSetError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { instant } from '../shared/pagination.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import type { PlatformConfigService } from '../platform/platform-config.js';
import type { DeliverWebhookPayload } from './webhook-event-log.js';
import { DELIVER_WEBHOOK_JOB } from './webhook-events.js';

export type { ResendMode } from '../../store/webhook-resends-repo.js';
export const RESEND_WEBHOOKS_JOB = 'webhook.resend';
/** Events one resend job run queues; a larger window goes on in a follow-up job. */
export const RESEND_BATCH = 500;

/** What a resend job carries: the selection, and where the previous run stopped. */
export interface ResendPayload {
  platformId: string;
  mode: ResendMode;
  since: number;
  until: number;
  afterId?: string;
}

/** One job at a time per platform: a second identical call's job runs after the first's and finds its events PENDING. */
const queueKey = (platformId: string) => `${RESEND_WEBHOOKS_JOB}:${platformId}`;

/**
 * Bulk resends of the event log: recover (failed at the current endpoint) and replay-missing (never
 * sent to it). The request counts and queues one job; the worker selects and queues the deliveries
 * in batches, each delivery keeping its event's id.
 */
export class WebhookResends {
  constructor(
    private readonly store: Store,
    private readonly platformConfig: PlatformConfigService,
    /** Events are stamped on their platform's clock: a window left open ends at that clock's now, not the real one. */
    private readonly clock: Pick<PlatformClock, 'now'>,
  ) {}

  private now(): number {
    return Date.now();
  }

  /** Counts the events `mode` selects in the window and queues their resending; `within`: the request's unit of work, if any. */
  async start(platformId: string, mode: ResendMode, window: { since: string; until?: string | undefined }, within?: UnitOfWork): Promise<{ count: number }> {
    const now = this.now();
    const since = instant('since', window.since)!;
    const until = instant('until', window.until) ?? (await this.clock.now(platformId, within));
    if (until < since) throw new ValidationError([{ field: 'until', message: 'is before since' }]);
    const config = await this.platformConfig.load(platformId, within);
    if (!config.webhook_endpoint) throw new WebhookEndpointNotSetError();
    const selection: ResendSelection = { platformId, mode, since, until, url: config.webhook_endpoint, now };
    return this.store.transaction(async (uow) => {
      const count = await countResendable(uow.db, selection);
      if (count > 0) {
        const payload: ResendPayload = { platformId, mode, since, until };
        await enqueueJob(uow, { id: newId('Job'), kind: RESEND_WEBHOOKS_JOB, payload, queueKey: queueKey(platformId) }, now);
      }
      return { count };
    }, within);
  }
}

/**
 * One run of a resend job, in the worker's batch: the next RESEND_BATCH selected events go
 * PENDING with a delivery each, and a follow-up job takes the rest. `endpoint`: the platform's
 * current endpoint (none: nothing to send to, the job ends).
 */
export async function queueResendBatch(uow: UnitOfWork, p: ResendPayload, endpoint: string | null, now: number): Promise<number> {
  if (!endpoint) return 0;
  const selection: ResendSelection = { platformId: p.platformId, mode: p.mode, since: p.since, until: p.until, url: endpoint, now };
  const ids = await findResendableIds(uow.db, selection, RESEND_BATCH, p.afterId);
  await setEventsPending(uow.db, ids, now);
  const deliveries = ids.map((eventId) => {
    const payload: DeliverWebhookPayload = { eventId, platformId: p.platformId, redeliver: true };
    return { id: newId('Job'), kind: DELIVER_WEBHOOK_JOB, payload };
  });
  await enqueueJobs(uow, deliveries, now);
  if (ids.length === RESEND_BATCH) {
    const next: ResendPayload = { ...p, afterId: ids.at(-1)! };
    await enqueueJob(uow, { id: newId('Job'), kind: RESEND_WEBHOOKS_JOB, payload: next, queueKey: queueKey(p.platformId) }, now);
  }
  return ids.length;
}
