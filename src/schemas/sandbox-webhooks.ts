import { Type } from 'typebox';

export const TestWebhookResponseSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'Where the test event was sent' }),
    response_status: Type.Integer({ description: "The endpoint's HTTP status: a 2xx, or 409 (it already had the event)" }),
    response_body: Type.Optional(Type.String({ description: "The first 1 KiB of the endpoint's answer; absent when it was empty" })),
  },
  { description: 'The endpoint received the test event' },
);
