import { Type } from 'typebox';
import { errorResponses } from '../http/schemas.js';
import type { RouteModule } from './types.js';

const TestWebhookResponseSchema = Type.Object(
  {
    url: Type.String({ description: 'URL where the webhook was sent' }),
    responseStatus: Type.Integer({ description: 'The HTTP status code returned by the webhook endpoint' }),
    responseBody: Type.Optional(Type.String({ description: 'The first 1 KiB of the body returned by the webhook endpoint' })),
    latencyMs: Type.Integer({ description: 'Time until the endpoint answered' }),
  },
  { description: 'Webhook delivered successfully' },
);

export const sandboxWebhookRoutes: RouteModule = (app, { webhookEvents }) => {
  app.post(
    '/sandbox/webhooks/test',
    {
      config: { sandboxOnly: true },
      schema: {
        tags: ['Sandbox'],
        summary: 'Send a test webhook',
        description:
          'Sends a signed `WEBHOOK.TEST` event to the configured endpoint now (not retried, not in the event log) and reports its answer. ' +
          'A non-2xx answer, a timeout or a connection error is a 400 WEBHOOK_DELIVERY_ERROR whose details carry responseStatus, responseBody and error; no endpoint is a 400 WEBHOOK_ENDPOINT_NOT_SET.',
        response: { 200: TestWebhookResponseSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => webhookEvents.sendTest(request.principal.platformId),
  );
};
