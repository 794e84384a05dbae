import { errorResponses } from '../schemas/common.js';
import { TestWebhookResponseSchema } from '../schemas/sandbox-webhooks.js';
import type { RouteModule } from './types.js';

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
