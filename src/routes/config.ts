import { Type } from 'typebox';
import { MAX_ENDPOINT_LENGTH, SECRET_ROTATION_WINDOW_MS } from '../domain/platform-config.js';
import { errorResponses } from '../http/schemas.js';
import type { RouteModule } from './types.js';

const PlatformConfigSchema = Type.Object(
  {
    id: Type.String({ examples: ['PlatformConfig:019542f5-b3e7-1d02-0000-000000000003'] }),
    webhookEndpoint: Type.Optional(Type.String({ description: 'URL where webhook notifications are sent; absent when none is set' })),
    webhookSecret: Type.String({
      description: 'Standard Webhooks signing secret (`whsec_` + base64). Verify deliveries with it, e.g. `new Webhook(secret).verify(body, headers)` from the standardwebhooks package.',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    }),
    previousWebhookSecretExpiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'Present during a rotation window: until then deliveries also carry a signature made with the previous secret' }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'The platform configuration' },
);

const UpdateConfigBody = Type.Object(
  {
    webhookEndpoint: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        format: 'uri',
        maxLength: MAX_ENDPOINT_LENGTH,
        description: 'Absolute http(s) URL that receives webhooks; null removes it (events are then kept as WEBHOOK_ENDPOINT_NOT_SET)',
        examples: ['https://api.mycompany.com/webhooks/grid'],
      }),
    ),
  },
  { additionalProperties: false },
);

const tags = ['Platform Configuration'];
const windowHours = SECRET_ROTATION_WINDOW_MS / 3_600_000;

export const configRoutes: RouteModule = (app, { platformConfig }) => {
  app.get(
    '/config',
    { schema: { tags, summary: 'Get platform configuration', response: { 200: PlatformConfigSchema, ...errorResponses() } } },
    async (request) => platformConfig.get(request.principal.platformId),
  );

  app.patch(
    '/config',
    {
      schema: {
        tags,
        summary: 'Update platform configuration',
        description: 'Fields left out are unchanged. Events stored while no endpoint is set are not sent when one is set; redeliver them with POST /webhook-events/{id}/redeliver.',
        body: UpdateConfigBody,
        response: { 200: PlatformConfigSchema, ...errorResponses(400, 415) },
      },
    },
    async (request) => platformConfig.update(request.principal.platformId, request.body),
  );

  app.post(
    '/config/webhook-secret/rotate',
    {
      schema: {
        tags,
        summary: 'Rotate the webhook signing secret',
        description: `Issues a new secret. For ${windowHours} hours every delivery carries two signatures in webhook-signature (new and previous secret, space-separated), so a receiver can switch secrets without dropping a webhook.`,
        response: { 200: PlatformConfigSchema, ...errorResponses() },
      },
    },
    async (request) => platformConfig.rotateSecret(request.principal.platformId),
  );
};
