import { Type } from 'typebox';
import { MAX_ENDPOINT_LENGTH } from '../domain/platform-config.js';

export const PlatformConfigSchema = Type.Object(
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

export const UpdateConfigBody = Type.Object(
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
