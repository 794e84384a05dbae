import { Type } from 'typebox';

export const TestWebhookResponseSchema = Type.Object(
  {
    url: Type.String({ description: 'URL where the webhook was sent' }),
    responseStatus: Type.Integer({ description: 'The HTTP status code returned by the webhook endpoint' }),
    responseBody: Type.Optional(Type.String({ description: 'The first 1 KiB of the body returned by the webhook endpoint' })),
    latencyMs: Type.Integer({ description: 'Time until the endpoint answered' }),
  },
  { description: 'Webhook delivered successfully' },
);
