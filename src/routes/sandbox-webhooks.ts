import { errorResponses } from '../schemas/common.js';
import { TestWebhookResponseSchema } from '../schemas/sandbox-webhooks.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

export const sandboxWebhookRoutes: RouteModule = (app, { webhookEvents }) => {
  app.post(
    '/sandbox/webhooks/test',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT' },
      schema: {
        tags: ['Sandbox'],
        summary: 'Send a test webhook',
        description:
          'Sends a `TEST` event (`{id, type, timestamp, data: {}}`), signed with X-Grid-Signature and the Standard Webhooks headers, to the configured endpoint now ' +
          '(not retried, not in the event log) and reports its answer. A 2xx or 409 answer is a 200 with `response_status` and `response_body`. ' +
          'Any other answer, a refused target, a timeout or a connection error is a 400 WEBHOOK_DELIVERY_ERROR whose details carry url, error and, when the endpoint answered, ' +
          'response_status and response_body; no endpoint is a 400 WEBHOOK_ENDPOINT_NOT_SET.',
        response: { 200: TestWebhookResponseSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => webhookEvents.sendTest(request.principal.platformId, requestUnitOfWork(request)),
  );
};
