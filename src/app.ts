import { v7 as uuidv7 } from 'uuid';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from './services.js';
import type { Permission } from './domain/platform/tokens.js';
import { ApiError } from './http/api-error.js';
import { basicAuth, requirePermissionDeclared, requireSandboxDeclared } from './http/auth.js';
import { errorSchema } from './schemas/common.js';
import { answerRuntimeRefusals, clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerJsonParser } from './http/json-body.js';
import { registerRequestLog } from './http/request-log.js';
import { registerUnimplementedOperations } from './http/grid-operations.js';
import { BASE_PATH, registerOpenApi } from './http/openapi.js';
import { lazySerializers } from './http/serialization.js';
import { validatorCompiler } from './http/validation.js';
import { routeModules, sandboxRouteModules } from './routes/index.js';
import { registerConsole } from './console/index.js';
import { sandboxKycPageRoutes } from './routes/sandbox-kyc-pages.js';
import { sandboxPageRoutes } from './routes/sandbox-pages.js';
import type { ApiInstance } from './routes/types.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers without credentials (health, the OpenAPI document). */
    public?: boolean;
  }
  interface FastifyInstance {
    /** Every versioned operation as registered, with the permission it declared. */
    apiOperations: ApiOperation[];
  }
}

export interface ApiOperation {
  method: string;
  url: string;
  permission: Permission;
}

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** The clock of the failed-authentication throttle and the per-token rate limit (a test advances its own). */
  now?: () => number;
}

const DOCS_PREFIX = `${BASE_PATH}/docs`;

/** Builds the HTTP application over the given services; does not listen. */
export async function buildApp(services: Services, opts: AppOptions = {}): Promise<FastifyInstance> {
  const config = services.config;
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: 1024 * 1024,
    // Always the server's own (a UUID v7: 62 random bits, and ordered as the requests arrived, which
    // orders the request log's entries begun in the same millisecond): a client cannot choose it.
    requestIdHeader: false,
    genReqId: () => uuidv7(),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    // A request must arrive whole within requestTimeout (headers within headersTimeout), however
    // slowly its bytes trickle in; Node checks these deadlines every second rather than every 30 s.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Without Host, Node would answer an empty 400 itself; the onRequest hook answers the Error object instead.
    http: { headersTimeout: config.headersTimeoutMs, requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: 1_000, requireHostHeader: false },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.maxConnections = config.maxConnections;
  answerRuntimeRefusals(app.server);

  app.setValidatorCompiler(validatorCompiler);
  // Only JSON bodies are accepted; anything else is a 415, not a string to validate.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);
  registerErrorHandling(app, services.tokens);
  registerIdempotency(app, services.idempotencyKeys);
  registerRequestLog(app, services.requestLogs);

  const authenticate = basicAuth(services.tokens, services.config, opts.now);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      throw new ApiError('INVALID_REQUEST_FORMAT', 'An HTTP/1.1 request needs a Host header');
    }
    if (request.routeOptions.config.public || request.url.startsWith(DOCS_PREFIX)) return;
    await authenticate(request, reply);
  });

  await registerOpenApi(app);
  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  if (services.config.serviceEnv !== 'production') {
    sandboxPageRoutes(app as ApiInstance, services);
    sandboxKycPageRoutes(app as ApiInstance, services);
  }

  const operations: ApiOperation[] = [];
  app.decorate('apiOperations', operations);
  await app.register(
    async (api) => {
      // Every operation declares the permission it needs, or the server does not start.
      api.addHook('onRoute', (routeOptions) => {
        const permission = requirePermissionDeclared(routeOptions, errorSchema(403));
        requireSandboxDeclared(routeOptions, services.config.serviceEnv);
        if (permission === undefined) return;
        for (const method of [routeOptions.method].flat()) operations.push({ method, url: routeOptions.url, permission });
      });
      for (const register of routeModules) register(api as ApiInstance, services);
      // In production the sandbox operations do not exist: every method on their paths is an unknown path.
      if (services.config.serviceEnv !== 'production') for (const register of sandboxRouteModules) register(api as ApiInstance, services);
    },
    { prefix: BASE_PATH },
  );
  if (services.config.serviceEnv !== 'production') await registerConsole(app, services, authenticate.signIn, opts.now ?? Date.now);
  // After the real routes: it answers 501 for exactly the document's operations they do not serve.
  registerUnimplementedOperations(app, services.config.serviceEnv);
  return app;
}
