import { errorResponses, extension, IdParamSchema, pageSchema } from '../schemas/common.js';
import { ListWebhookEventsQuery, RedeliveredEventSchema, WebhookEventDetailSchema, WebhookEventSchema } from '../schemas/webhook-events.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

const tags = ['Webhooks'];
/** The whole event log (events, their attempts, redelivery) is this service's. */
const eventLog = extension('The operation: the webhook event log');

export const webhookEventRoutes: RouteModule = (app, { webhookEvents }) => {
  app.get(
    '/webhook-events',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        ...eventLog,
        summary: 'List webhook events',
        description: 'Events in creation order, oldest first.',
        querystring: ListWebhookEventsQuery,
        response: { 200: pageSchema(WebhookEventSchema, 'A page of webhook events'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, type, deliveryState } = request.query;
      return webhookEvents.list(request.principal.platformId, limit ?? 20, cursor, { ...(type ? { type } : {}), ...(deliveryState ? { deliveryState } : {}) });
    },
  );

  app.get(
    '/webhook-events/:id',
    {
      config: { permission: 'VIEW' },
      schema: { tags, ...eventLog, summary: 'Get a webhook event and its delivery attempts', params: IdParamSchema, response: { 200: WebhookEventDetailSchema, ...errorResponses(400, 404) } },
    },
    async (request) => webhookEvents.get(request.principal.platformId, request.params.id),
  );

  app.post(
    '/webhook-events/:id/redeliver',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        ...eventLog,
        summary: 'Redeliver a webhook event',
        description:
          'Queues a new delivery of the same event: same webhook-id, same body, a fresh retry schedule. Answers 202 at once with the event (now PENDING); ' +
          'the outcome shows on GET /webhook-events/{id}. No endpoint configured: 400 WEBHOOK_ENDPOINT_NOT_SET.',
        params: IdParamSchema,
        response: { 202: RedeliveredEventSchema, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => reply.code(202).send(await webhookEvents.redeliver(request.principal.platformId, request.params.id, requestUnitOfWork(request))),
  );
};
