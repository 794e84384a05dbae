import { Type } from 'typebox';
import { DELIVERY_STATES } from '../domain/webhook-event-log.js';
import { errorResponses, IdParamSchema, pageSchema, PageQuerySchema } from '../http/schemas.js';
import type { RouteModule } from './types.js';

const DeliveryStateSchema = Type.Enum([...DELIVERY_STATES], {
  description:
    'PENDING: not yet delivered, being tried; DELIVERED: an attempt got a 2xx; FAILED: every retry failed; WEBHOOK_ENDPOINT_NOT_SET: no endpoint was configured (redeliver once one is)',
});

const WebhookEventSchema = Type.Object({
  id: Type.String({ description: 'The event id; also the webhook-id header of every delivery', examples: ['Webhook:019542f5-b3e7-1d02-0000-000000000007'] }),
  type: Type.String({ examples: ['CARD_TRANSACTION.EXPIRED'] }),
  deliveryState: DeliveryStateSchema,
  attemptCount: Type.Integer({ description: 'HTTP delivery attempts so far' }),
  lastAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
  nextAttemptAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the next retry is due (PENDING only)' })),
  deliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  payload: Type.Object({}, { additionalProperties: true, description: 'The delivered JSON body, identical on every attempt' }),
});

const WebhookAttemptSchema = Type.Object({
  id: Type.String(),
  attemptedAt: Type.String({ format: 'date-time' }),
  url: Type.String(),
  responseStatus: Type.Optional(Type.Integer({ description: 'Absent when no answer came (timeout, connection error)' })),
  latencyMs: Type.Integer(),
  error: Type.Optional(Type.String()),
  responseBody: Type.Optional(Type.String({ description: 'The first 1 KiB of the answer' })),
});

const WebhookEventDetailSchema = Type.Object(
  { ...WebhookEventSchema.properties, attempts: Type.Array(WebhookAttemptSchema, { description: 'Every delivery attempt, oldest first' }) },
  { description: 'A webhook event with its delivery attempts' },
);

const tags = ['Webhooks'];

export const webhookEventRoutes: RouteModule = (app, { webhookEvents }) => {
  app.get(
    '/webhook-events',
    {
      schema: {
        tags,
        summary: 'List webhook events',
        description: 'Events in creation order, oldest first.',
        querystring: Type.Object(
          {
            ...PageQuerySchema,
            type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only events of this type, e.g. CARD_TRANSACTION.SETTLED' })),
            deliveryState: Type.Optional(DeliveryStateSchema),
          },
          { additionalProperties: false },
        ),
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
      schema: { tags, summary: 'Get a webhook event and its delivery attempts', params: IdParamSchema, response: { 200: WebhookEventDetailSchema, ...errorResponses(400, 404) } },
    },
    async (request) => webhookEvents.get(request.principal.platformId, request.params.id),
  );

  app.post(
    '/webhook-events/:id/redeliver',
    {
      schema: {
        tags,
        summary: 'Redeliver a webhook event',
        description:
          'Queues a new delivery of the same event: same webhook-id, same body, a fresh retry schedule. Answers 202 at once with the event (now PENDING); ' +
          'the outcome shows on GET /webhook-events/{id}. No endpoint configured: 400 WEBHOOK_ENDPOINT_NOT_SET.',
        params: IdParamSchema,
        response: { 202: Type.Object(WebhookEventSchema.properties, { description: 'Redelivery queued' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => reply.code(202).send(await webhookEvents.redeliver(request.principal.platformId, request.params.id)),
  );
};
