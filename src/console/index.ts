import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import type { SignIn } from '../http/auth.js';
import type { Services } from '../services.js';
import { readClock } from './clock.js';
import { renderConsoleError } from './errors.js';
import { pageModules } from './pages/index.js';
import { ConsoleSessions } from './session.js';
import { checkCsrf, requireSession, signInRoutes } from './sign-in.js';
import { guardFormSubmissions } from './submissions.js';

export const CONSOLE_PATH = '/console';

const VIEWS = fileURLToPath(new URL('./views', import.meta.url));
const ASSETS = fileURLToPath(new URL('./assets', import.meta.url));
const require = createRequire(import.meta.url);

/** What every console page module gets: the services, and its sessions. */
export interface ConsoleContext {
  services: Services;
  sessions: ConsoleSessions;
  signIn: SignIn;
}

/**
 * The sandbox console at /console: server-rendered pages over the same domain services as the API.
 * Registered only on a sandbox server (a production server answers /console as an unknown path).
 */
export async function registerConsole(app: FastifyInstance, services: Services, signIn: SignIn, now: () => number): Promise<void> {
  const ctx: ConsoleContext = { services, sessions: new ConsoleSessions(services.consoleSessionKey, now), signIn };
  const assets: Record<string, { type: string; body: Buffer }> = {
    'htmx.min.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(require.resolve('htmx.org/dist/htmx.min.js')) },
    'console.css': { type: 'text/css; charset=utf-8', body: readFileSync(`${ASSETS}/console.css`) },
  };
  await app.register(
    async (scope) => {
      // The API's Basic auth does not apply here (the session does) and the OpenAPI document does not list these pages.
      scope.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), public: true };
        route.schema = { ...route.schema, hide: true };
      });
      await scope.register(fastifyCookie);
      await scope.register(fastifyFormbody);
      await scope.register(fastifyCsrf, {
        sessionPlugin: '@fastify/cookie',
        cookieOpts: { path: CONSOLE_PATH, httpOnly: true, sameSite: 'strict', secure: 'auto', signed: false },
      });
      await scope.register(fastifyView, { engine: { eta: new Eta({ views: VIEWS }) }, root: VIEWS });
      scope.setErrorHandler(renderConsoleError);

      scope.get('/assets/:name', async (request, reply) => {
        const asset = assets[(request.params as { name: string }).name];
        if (!asset) return reply.callNotFound();
        return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body);
      });
      scope.get('/', async (_request, reply) => reply.redirect(`${CONSOLE_PATH}/customers`));
      signInRoutes(scope, ctx);
      await scope.register(async (pages) => {
        pages.addHook('onRequest', requireSession(ctx));
        checkCsrf(pages);
        guardFormSubmissions(pages, ctx);
        pages.addHook('preHandler', readClock(ctx));
        for (const register of pageModules) register(pages, ctx);
      });
    },
    { prefix: CONSOLE_PATH },
  );
}
