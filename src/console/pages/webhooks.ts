import { ValidationError } from '../../domain/shared/errors.js';
import type { ResendMode } from '../../domain/webhooks/webhook-resends.js';
import { DELIVERY_STATES } from '../../domain/webhooks/webhook-event-log.js';
import { renderFragment, renderPage, requirePermission, sessionOf } from '../render.js';
import { formInstant } from '../time-input.js';
import type { PageModule } from './index.js';
import { isLiveRefresh, listQuery, PAGE_SIZE } from './list-query.js';

export const webhookPages: PageModule = (scope, { services }) => {
  scope.get('/webhooks', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { cursor, filters } = listQuery(request.query, { type: 'text', deliveryState: DELIVERY_STATES });
    const page = await services.webhookEvents.list(platformId, PAGE_SIZE, cursor, { ...(filters as { type?: string; deliveryState?: (typeof DELIVERY_STATES)[number] }), sortOrder: 'desc' });
    const data = { page, filters, cursor, live: cursor === undefined };
    if (isLiveRefresh(request.headers)) return renderFragment(reply, 'partials/events-table', data);
    const config = await services.platformConfig.getWithoutSecret(platformId);
    const { notice } = request.query as { notice?: string };
    const { queued, mode } = request.query as { queued?: string; mode?: string };
    const resent = /^\d+$/.test(queued ?? '') && (mode === 'recover' || mode === 'replay-missing') ? RESENT[mode](Number(queued)) : undefined;
    return renderPage(request, reply, 'webhooks', { title: 'Webhooks', ...data, config, deliveryStates: DELIVERY_STATES, notice: resent ?? NOTICES[notice ?? ''] });
  });

  scope.get('/webhooks/:id', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const event = await services.webhookEvents.get(platformId, (request.params as { id: string }).id);
    // Newest attempt first: the one a resend adds is at the top.
    const attempts = [...event.attempts].reverse();
    if (isLiveRefresh(request.headers)) return renderFragment(reply, 'partials/attempts', { event, attempts });
    const { notice } = request.query as { notice?: string };
    return renderPage(request, reply, 'webhook-event', { title: `Event ${event.id}`, event, attempts, notice: NOTICES[notice ?? ''] });
  });

  scope.post('/webhooks/:id/resend', async (request, reply) => {
    const { platformId } = requirePermission(request, 'TRANSACT');
    const { id } = request.params as { id: string };
    await services.webhookEvents.redeliver(platformId, id);
    return reply.redirect(`/console/webhooks/${encodeURIComponent(id)}?notice=resent`, 303);
  });

  for (const mode of ['recover', 'replay-missing'] as const) {
    scope.post(`/webhooks/${mode}`, async (request, reply) => {
      const { platformId } = requirePermission(request, 'TRANSACT');
      const since = formInstant('since', (request.body as Record<string, unknown> | undefined)?.since);
      if (since === undefined) throw new ValidationError([{ field: 'since', message: 'is required' }]);
      const { count } = await services.webhookResends.start(platformId, mode, { since });
      return reply.redirect(`/console/webhooks?mode=${mode}&queued=${count}`, 303);
    });
  }

  scope.post('/webhooks/endpoint', async (request, reply) => {
    const { platformId } = requirePermission(request, 'MANAGE');
    const raw = (request.body as Record<string, unknown> | undefined)?.webhookEndpoint;
    const endpoint = typeof raw === 'string' ? raw.trim() : '';
    await services.platformConfig.update(platformId, { webhookEndpoint: endpoint === '' ? null : endpoint });
    return reply.redirect('/console/webhooks?notice=endpoint', 303);
  });

  scope.post('/webhooks/test', async (request, reply) => {
    const { platformId } = requirePermission(request, 'TRANSACT');
    const result = await services.webhookEvents.sendTest(platformId);
    return renderPage(request, reply, 'webhook-test', { title: 'Test webhook', result });
  });

  scope.post('/webhooks/rotate-secret', async (request, reply) => {
    const { platformId } = requirePermission(request, 'MANAGE');
    const config = await services.platformConfig.rotateSecret(platformId);
    // The new secret is shown once, on this answer, as the API shows it once.
    return renderPage(request, reply, 'webhook-secret', { title: 'Webhook secret rotated', config });
  });
};

const NOTICES: Record<string, string> = {
  resent: 'Resend queued: the new attempt appears below when it is made.',
  endpoint: 'Webhook endpoint saved.',
};

/** What a bulk resend answers: how many events it queued. */
const RESENT: Record<ResendMode, (count: number) => string> = {
  recover: (count) => `Recover queued ${count} failed event${count === 1 ? '' : 's'}: each is sent again with its own id.`,
  'replay-missing': (count) => `Replay queued ${count} missing event${count === 1 ? '' : 's'}: each is sent to the current endpoint with its own id.`,
};
