import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../config.js';
import { errorSchema } from '../schemas/common.js';
import { WEBHOOK_SIGNATURE_SCHEME, WEBHOOKS } from './openapi-webhooks.js';

export const BASE_PATH = `/${API_VERSION}`;

/** Collects route schemas into an OpenAPI 3.1 document; serves it and a docs page, both public. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  documentBodyErrors(app);
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
