import { Type } from 'typebox';
import { DELIVERY_STATES } from '../domain/webhooks/webhook-event-log.js';
import { PageQuerySchema } from './common.js';

const DeliveryStateSchema = Type.Enum([...DELIVERY_STATES], {
  description:
    'PENDING: not yet delivered, being tried; DELIVERED: an attempt got a 2xx; FAILED: every retry failed; WEBHOOK_ENDPOINT_NOT_SET: no endpoint was configured (redeliver once one is)',
});

export const WebhookEventSchema = Type.Object({
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

export const WebhookEventDetailSchema = Type.Object(
  { ...WebhookEventSchema.properties, attempts: Type.Array(WebhookAttemptSchema, { description: 'Every delivery attempt, oldest first' }) },
  { description: 'A webhook event with its delivery attempts' },
);

export const ListWebhookEventsQuery = Type.Object(
  {
    ...PageQuerySchema,
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only events of this type, e.g. CARD_TRANSACTION.SETTLED' })),
    deliveryState: Type.Optional(DeliveryStateSchema),
  },
  { additionalProperties: false },
);

/** The event as the redelivery's 202 answers it. */
export const RedeliveredEventSchema = Type.Object(WebhookEventSchema.properties, { description: 'Redelivery queued' });

/** The window of a bulk resend (recover, replay-missing), by the events' creation time. */
export const ResendWindowBody = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'Events created at or after this time (ISO 8601)' }),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Events created at or before this time (ISO 8601); default: now' })),
  },
  { additionalProperties: false },
);

export const ResendAcceptedSchema = Type.Object(
  { count: Type.Integer({ minimum: 0, description: 'Events selected now; the worker sends each of them that still qualifies when it runs' }) },
  { description: 'Resend queued' },
);

export const SignedDeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'The event id (the webhook-id header)' }),
    type: Type.String({ examples: ['CARD_TRANSACTION.AUTHORIZED'] }),
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'Every header a delivery sends, signed now: X-Grid-Signature, webhook-id, webhook-timestamp, webhook-signature, content-type',
    }),
    body: Type.String({ description: 'The exact body bytes that are signed and sent' }),
  },
  { description: 'The event as a delivery would send it now; send the headers and body verbatim' },
);
