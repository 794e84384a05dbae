import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { API_VERSION } from '../config.js';
import { errorSchema } from '../schemas/common.js';
import { takesIdempotencyKey } from './idempotency.js';
import { WEBHOOK_SIGNATURE_SCHEME, WEBHOOKS } from './openapi-webhooks.js';

export const BASE_PATH = `/${API_VERSION}`;

/** Collects route schemas into an OpenAPI 3.1 document; serves it and a docs page, both public. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  documentBodyErrors(app);
  documentIdempotencyConflict(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payments service',
        version: API_VERSION,
        description:
          'Beneficial owners, cards and sandbox card simulators. Every operation lives under the versioned base URL; ' +
          'every error is an Error object whose status equals the HTTP status.',
      },
      servers: [{ url: BASE_PATH, description: 'This server, interface version ' + API_VERSION }],
      components: {
        securitySchemes: {
          BasicAuth: { type: 'http', scheme: 'basic', description: 'Credentials are <api token id or clientId>:<client secret>' },
          AgentAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'Agent-scoped endpoints only; every operation of this service takes BasicAuth and refuses a bearer token with 401',
          },
          WebhookSignature: WEBHOOK_SIGNATURE_SCHEME,
        },
      },
      security: [{ BasicAuth: [] }],
      webhooks: WEBHOOKS,
    },
    hideUntagged: false,
    transform: ({ schema, url, route }) => ({ schema: takesIdempotencyKey(route) ? withIdempotencyHeaders(schema) : schema, url }),
  });
  await app.register(swaggerUi, { routePrefix: `${BASE_PATH}/docs`, uiConfig: { deepLinking: true } });
  app.get(`${BASE_PATH}/openapi.json`, { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A request of these methods may carry a body, which is read before the route's own checks: an
 * unreadable one answers 400, an oversize one 413, one that is not JSON 415. Every such operation
 * documents those answers, whatever its own schema lists.
 */
function documentBodyErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, unknown> | undefined;
    if (!response || ![route.method].flat().some((m) => BODY_METHODS.includes(m))) return;
    for (const status of [400, 413, 415] as const) response[status] ??= errorSchema(status);
  });
}

/** A POST or PATCH answers 409 CONFLICT while another request with its Idempotency-Key runs. */
function documentIdempotencyConflict(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, unknown> | undefined;
    if (response && takesIdempotencyKey(route)) response[409] ??= errorSchema(409);
  });
}

const IDEMPOTENCY_KEY = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        'Makes a retry safe: the first answer (below 500) is kept 24 hours and replayed, with Idempotent-Replayed: true, to the same token sending the same key, ' +
        'method, path and body; the operation runs once. The same key with another request: 400 INVALID_INPUT on Idempotency-Key. ' +
        'While a request with the key is still running: 409 CONFLICT. 1 to 255 printable ASCII characters.',
    }),
  ),
});

const REPLAYED_HEADER = {
  'Idempotent-Replayed': { type: 'string', enum: ['true'], description: 'Present on an answer replayed for an Idempotency-Key: the operation did not run again' },
};

/** Answered before the operation runs, so never kept for a replay. */
const NEVER_REPLAYED = new Set([401, 413, 415, 429]);

/**
 * For the document only (a header schema on the route would validate every header of the request):
 * the Idempotency-Key parameter, and the replay header on every answer that can be replayed.
 */
function withIdempotencyHeaders(schema: FastifySchema | undefined): FastifySchema {
  const response = Object.fromEntries(
    Object.entries((schema?.response ?? {}) as Record<string, object>).map(([status, r]) => [status, Number(status) < 500 && !NEVER_REPLAYED.has(Number(status)) ? { ...r, headers: REPLAYED_HEADER } : r]),
  );
  return { ...schema, headers: IDEMPOTENCY_KEY, response };
}
