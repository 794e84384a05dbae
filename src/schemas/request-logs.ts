import { Type } from 'typebox';
import { PageQuerySchema } from './common.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'];

export const RequestLogSchema = Type.Object(
  {
    id: Type.String({ description: 'The X-Request-Id the request was answered with', examples: ['6f1c1b7e-3f3a-4d4e-9a5e-0b8f2d6c4a11'] }),
    method: Type.String({ examples: ['POST'] }),
    path: Type.String({ description: 'The path as requested, without the query', examples: ['/2025-10-13/customers'] }),
    query: Type.Optional(Type.String({ description: 'The query string, without the ?' })),
    status: Type.Integer({ description: 'The HTTP status answered' }),
    durationMs: Type.Number({ description: 'From arrival to the answer handed to the connection, in milliseconds (microsecond precision)' }),
    tokenId: Type.String({ description: 'The API token that authenticated the request' }),
    clientRequestId: Type.Optional(Type.String({ description: 'The X-Request-Id header the client sent, if any' })),
    createdAt: Type.String({ format: 'date-time', description: 'When the request arrived' }),
    requestBody: Type.Optional(Type.String({ description: 'The JSON body, redacted (secrets, card numbers); a body that is not JSON is only summarized; cut past REQUEST_LOG_BODY_CHARS' })),
    responseBody: Type.Optional(Type.String({ description: 'The JSON answer, redacted the same way' })),
  },
  { description: 'One request to this service and its answer, secrets redacted' },
);

export const ListRequestLogsQuery = Type.Object(
  {
    ...PageQuerySchema,
    method: Type.Optional(Type.Enum(METHODS, { description: 'Only requests with this method' })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: '^/', description: 'Only requests whose path starts with this, e.g. /2025-10-13/customers' })),
    status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: 'Only requests answered with this status' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Only requests made at or after this time (ISO 8601, inclusive)' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Only requests made at or before this time (ISO 8601, inclusive)' })),
  },
  { additionalProperties: false },
);
