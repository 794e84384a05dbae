import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import type { ConsoleContext } from './index.js';
import { renderPage } from './render.js';
import { SESSION_COOKIE } from './session.js';

const COOKIE = { path: '/console', httpOnly: true, sameSite: 'strict', secure: 'auto' } as const;

/** Every form the console sends carries the CSRF token; checked once the form body is parsed. */
export function checkCsrf(scope: FastifyInstance) {
  scope.addHook('preHandler', (request, reply, done) => (request.method === 'POST' ? scope.csrfProtection(request, reply, done) : done()));
}

export function signInRoutes(scope: FastifyInstance, ctx: ConsoleContext): void {
  scope.register(async (forms) => {
    checkCsrf(forms);
    forms.get('/sign-in', async (request, reply) => {
      const { ended } = request.query as { ended?: string };
      return renderPage(request, reply, 'sign-in', { title: 'Sign in', notice: ended === 'expired' ? 'Your session has ended: sign in again.' : ended === 'out' ? 'You are signed out.' : undefined });
    });

    forms.post('/sign-in', async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const clientId = typeof body.clientId === 'string' ? body.clientId.trim() : '';
      const secret = typeof body.clientSecret === 'string' ? body.clientSecret.trim() : '';
      try {
        const principal = await ctx.signIn(request, clientId, secret);
        if (principal.environment === 'production') throw new ApiError('FORBIDDEN', 'The console is for sandbox tokens; this token is a production token.');
        const session = ctx.sessions.issue(principal);
        reply.setCookie(SESSION_COOKIE, session.value, { ...COOKIE, expires: new Date(session.expiresAt) });
        return reply.redirect('/console/customers', 303);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.headers?.['retry-after']) reply.header('retry-after', err.headers['retry-after']);
        const message = err.code === 'UNAUTHORIZED' ? 'That client ID and secret do not match a live token.' : err.message;
        return renderPage(request, reply.code(err.status), 'sign-in', { title: 'Sign in', error: message, clientId });
      }
    });

    forms.post('/sign-out', async (_request, reply) => {
      reply.clearCookie(SESSION_COOKIE, COOKIE);
      return reply.redirect('/console/sign-in?ended=out', 303);
    });
  });
}

/** The session check of every page: a signed, unexpired cookie naming a live token; else back to sign-in. */
export function requireSession(ctx: ConsoleContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const cookie = request.cookies[SESSION_COOKIE];
    const principal = ctx.sessions.read(cookie);
    if (principal && (await ctx.services.tokens.isLive(principal.tokenId))) {
      request.consoleSession = principal;
      return;
    }
    if (cookie !== undefined) reply.clearCookie(SESSION_COOKIE, COOKIE);
    const target = `/console/sign-in${cookie === undefined ? '' : '?ended=expired'}`;
    if (request.method === 'GET' && request.headers['hx-request'] === undefined) return reply.redirect(target, 303);
    // A live region's poll or a form cannot follow a redirect usefully: it is told, and the page links to sign-in.
    throw new ApiError('UNAUTHORIZED', 'Your session has ended: sign in again.');
  };
}
