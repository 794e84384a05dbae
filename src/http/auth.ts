import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { PERMISSIONS, permissionRank, tokenIdFromUsername, type Permission, type Principal, type TokenService } from '../domain/platform/tokens.js';
import { AuthFailureThrottle, type ThrottleVerdict } from './auth-throttle.js';
import { ApiError, routeNotFound } from './api-error.js';
import { rateLimitHeaders, TokenRateLimit } from './token-rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Sandbox-only operation: answers exactly like an unknown path in production. */
    sandboxOnly?: boolean;
    /** What the token needs for this operation; every authenticated route declares it (see requirePermissionDeclared). */
    permission?: Permission;
    /**
     * The operation confirms the token is not revoked in the statement that reads its data, so a
     * token this process verified before is not read again (TokenService.authenticate). Set only on
     * a route whose every 2xx answer comes from such a statement; error answers are confirmed by the
     * error handler.
     */
    confirmsToken?: boolean;
  }
}

const CHALLENGE = { 'www-authenticate': 'Basic realm="payments", charset="UTF-8"' };
const HOW = 'send Authorization: Basic base64(<token id>:<client secret>)';

/**
 * BasicAuth for every operation; a Bearer (AgentAuth) credential is refused with its own message.
 * `now` is the clock of the failed-authentication throttle and of the per-token rate limit.
 */
export function basicAuth(tokens: TokenService, config: Config, now: () => number = Date.now) {
  const throttle = new AuthFailureThrottle(
    (key) => (key.startsWith('ip:') ? config.authFailuresPerAddress : config.authFailuresPerClient),
    config.authFailureWindowMs,
    undefined,
    now,
  );
  const rateLimit = config.rateLimitPerToken > 0 ? new TokenRateLimit(config.rateLimitPerToken, config.rateLimitWindowMs, undefined, now) : undefined;
  /**
   * Throws 429 at once, before any read, when the throttle refuses the request whatever the
   * database would say; else returns the verdict on its address, which turns a failure into a 429:
   * - a client id past its burst is refused whatever the secret, the right one included, until its
   *   window ends (simple, and it costs a flood on one id nothing: guessing 256-bit secrets is not
   *   the threat, CPU is);
   * - from an address past its burst, credentials that name no token (none, bearer, malformed) are
   *   refused; the others are verified as usual (one read by primary key, or none for a token this
   *   process remembers), so a valid token is never refused because other clients failed from the
   *   same address (every client of a local sandbox, or behind one proxy, shares it).
   */
  function checkThrottle(request: FastifyRequest, credentials: { username: string } | undefined): ThrottleVerdict | undefined {
    const tokenId = credentials && tokenIdFromUsername(credentials.username);
    const client = tokenId === undefined ? undefined : throttle.check([`id:${tokenId}`]);
    if (client) throw tooManyFailures(client);
    const address = throttle.check([`ip:${request.ip}`]);
    if (address && tokenId === undefined) throw tooManyFailures(address);
    return address;
  }

  /** The console's sign-in: the same credentials check and the same throttle as Basic auth; throws 401 or 429. */
  async function signIn(request: FastifyRequest, username: string, secret: string): Promise<Principal> {
    const credentials = { username, secret };
    const addressHeld = throttle.isEmpty() ? undefined : checkThrottle(request, credentials);
    const principal = await tokens.authenticate(username, secret);
    if (principal) return principal;
    throttle.fail(throttleKeys(request, credentials));
    throw addressHeld ? tooManyFailures(addressHeld) : unauthorized();
  }

  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization ?? '';
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const credentials = scheme === 'basic' ? parseBasic(header.slice(space + 1).trim()) : undefined;
    // Looked up only when the throttle holds anything: the successful path stays as it was.
    const addressHeld = throttle.isEmpty() ? undefined : checkThrottle(request, credentials);
    if (scheme === 'bearer') {
      throttle.fail(throttleKeys(request, credentials));
      throw new ApiError('UNAUTHORIZED', `This operation takes basic credentials, not a bearer token; ${HOW}`, undefined, CHALLENGE);
    }
    // An Idempotency-Key replay answers from the stored answer, not the operation's statement: such a request is confirmed here.
    const confirmedByOperation = request.routeOptions.config.confirmsToken === true && request.headers['idempotency-key'] === undefined;
    const principal = credentials && (await tokens.authenticate(credentials.username, credentials.secret, confirmedByOperation));
    if (!principal) {
      throttle.fail(throttleKeys(request, credentials));
      // From an address past its burst a failure is a 429 (the flood is told to back off), a success is served.
      throw addressHeld ? tooManyFailures(addressHeld) : unauthorized();
    }
    request.principal = principal;
    if (rateLimit) {
      const state = rateLimit.take(principal.tokenId);
      const headers = rateLimitHeaders(state);
      // On every answer to the token, errors included (the error handler keeps headers already set).
      reply.headers(headers);
      if (state.limited) {
        throw new ApiError('RATE_LIMITED', `Too many requests for this token; retry after ${state.resetSeconds} s`, undefined, {
          ...headers,
          'retry-after': String(state.resetSeconds),
        });
      }
    }
    // (A production server does not register them at all; this is for a production token on a sandbox server.)
    if (request.routeOptions.config.sandboxOnly && (principal.environment === 'production' || config.serviceEnv === 'production')) {
      throw routeNotFound(request.method, request.url);
    }
    const needed = request.routeOptions.config.permission;
    // A route without a declaration never registers (requirePermissionDeclared); unmatched paths have none and 404 later.
    if (needed !== undefined && permissionRank(principal.permission) < permissionRank(needed)) {
      throw forbidden(needed);
    }
  }
  return Object.assign(authenticate, { signIn });
}

/** Checks a client id and secret for the console's sign-in (see basicAuth). */
export type SignIn = (request: FastifyRequest, username: string, secret: string) => Promise<Principal>;

/** The throttle's keys for a request: its address and, when it names one, the token. */
function throttleKeys(request: FastifyRequest, credentials: { username: string } | undefined): string[] {
  const tokenId = credentials && tokenIdFromUsername(credentials.username);
  return tokenId === undefined ? [`ip:${request.ip}`] : [`ip:${request.ip}`, `id:${tokenId}`];
}

function parseBasic(encoded: string): { username: string; secret: string } | undefined {
  if (encoded.length === 0 || encoded.length > 512) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  // No token id or secret holds a control character; PostgreSQL would refuse a NUL with an error.
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return undefined;
  // Secrets never contain a colon; the username may (`Token:<uuid>`), so split on the last one.
  const colon = decoded.lastIndexOf(':');
  if (colon < 1) return undefined;
  return { username: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export function unauthorized(): ApiError {
  return new ApiError('UNAUTHORIZED', `Missing or invalid API credentials; ${HOW}`, undefined, CHALLENGE);
}

function tooManyFailures(held: ThrottleVerdict): ApiError {
  return new ApiError('RATE_LIMITED', `Too many failed authentications; retry after ${held.retryAfterSeconds} s`, undefined, {
    'retry-after': String(held.retryAfterSeconds),
  });
}

export function forbidden(needed: Permission): ApiError {
  return new ApiError('FORBIDDEN', `This operation needs a token with the ${needed} permission`, { requiredPermission: needed });
}

/**
 * onRoute check: an authenticated route that does not declare the permission it needs refuses to
 * register, so the server does not start. A route needing more than VIEW documents its 403.
 */
export function requirePermissionDeclared(
  routeOptions: { method: string | string[]; url: string; config?: unknown; schema?: { response?: unknown } },
  forbiddenSchema: unknown,
): Permission | undefined {
  const config = (routeOptions.config ?? {}) as { public?: boolean; permission?: Permission };
  if (config.public) return undefined;
  const needed = config.permission;
  if (needed === undefined || !PERMISSIONS.includes(needed)) {
    throw new Error(`Route ${String(routeOptions.method)} ${routeOptions.url} declares no permission (config.permission: VIEW, TRANSACT or MANAGE)`);
  }
  const response = routeOptions.schema?.response as Record<number, unknown> | undefined;
  if (needed !== 'VIEW' && response) response[403] = forbiddenSchema;
  return needed;
}

/**
 * onRoute check: a route is sandbox-only exactly when its path is under /sandbox/, and a
 * production server registers none (their modules are sandboxRouteModules).
 */
export function requireSandboxDeclared(routeOptions: { method: string | string[]; url: string; config?: unknown }, serviceEnv: string): void {
  const sandboxOnly = ((routeOptions.config ?? {}) as { sandboxOnly?: boolean }).sandboxOnly === true;
  const underSandbox = /\/sandbox\//.test(routeOptions.url);
  if (sandboxOnly !== underSandbox) {
    throw new Error(`Route ${String(routeOptions.method)} ${routeOptions.url}: config.sandboxOnly must be set exactly on the paths under /sandbox/`);
  }
  if (underSandbox && serviceEnv === 'production') {
    throw new Error(`Route ${String(routeOptions.method)} ${routeOptions.url} is a sandbox operation: register it in sandboxRouteModules`);
  }
}
