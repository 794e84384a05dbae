import { errorResponses, extension, IdParamSchema, pageSchema } from '../schemas/common.js';
import { ListWebhookEventsQuery, RedeliveredEventSchema, ResendAcceptedSchema, ResendWindowBody, SignedDeliverySchema, WebhookEventDetailSchema, WebhookEventSchema } from '../schemas/webhook-events.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import type { ResendMode } from '../domain/webhooks/webhook-resends.js';

const tags = ['Webhooks'];
/** The whole event log (events, their attempts, redelivery) is this service's. */
const eventLog = extension('The operation: the webhook event log');

export const webhookEventRoutes: RouteModule = (app, { webhookEvents, webhookResends, signedDeliveries }) => {
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

  const resend = (mode: ResendMode, summary: string, description: string) =>
    app.post(
      `/webhook-events/${mode}`,
      {
        config: { permission: 'TRANSACT' },
        schema: {
          tags,
          ...eventLog,
          summary,
          description: `${description} Answers 202 at once with how many events it selected; the worker queues their deliveries in the background, each with its event's id (the webhook-id). An event a resend already made due is not taken again, so a second identical call does not double a delivery. No endpoint configured: 400 WEBHOOK_ENDPOINT_NOT_SET.`,
          body: ResendWindowBody,
          response: { 202: ResendAcceptedSchema, ...errorResponses(400) },
        },
      },
      async (request, reply) => reply.code(202).send(await webhookResends.start(request.principal.platformId, mode, request.body, requestUnitOfWork(request))),
    );
  resend(
    'recover',
    'Recover failed webhook events',
    'Sends again, now, every event created in the window whose latest attempt, to the current endpoint, failed: FAILED, or PENDING with its next retry still ahead.',
  );
  resend(
    'replay-missing',
    'Replay webhook events the current endpoint never got',
    'Sends every event created in the window that was never sent to the current endpoint: made while no endpoint was set (WEBHOOK_ENDPOINT_NOT_SET), or sent only to an earlier endpoint.',
  );

  app.post(
    '/webhook-events/:id/signed-delivery',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        ...eventLog,
        summary: 'Sign a webhook event as a delivery would send it',
        description:
          'The signed headers and exact body a delivery of the event would send at this moment (X-Grid-Signature and the Standard Webhooks headers, with the platform\'s current keys), ' +
          'for a forwarder such as the CLI\'s listen to send verbatim to a receiver the server cannot reach. Sends nothing and changes nothing; needs no endpoint.',
        params: IdParamSchema,
        response: { 200: SignedDeliverySchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => signedDeliveries.sign(request.principal.platformId, request.params.id, requestUnitOfWork(request)),
  );
};
