import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Principal, TokenService } from '../domain/tokens.js';
import { ApiError, routeNotFound } from './api-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Sandbox-only operation: answers exactly like an unknown path in production. */
    sandboxOnly?: boolean;
  }
}

const CHALLENGE = { 'www-authenticate': 'Basic realm="payments", charset="UTF-8"' };
const HOW = 'send Authorization: Basic base64(<token id>:<client secret>)';

/** BasicAuth for every operation; a Bearer (AgentAuth) credential is refused with its own message. */
export function basicAuth(tokens: TokenService, config: Config) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization ?? '';
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    if (scheme === 'bearer') {
      throw new ApiError('UNAUTHORIZED', `This operation takes basic credentials, not a bearer token; ${HOW}`, undefined, CHALLENGE);
    }
    const principal = scheme === 'basic' ? await fromBasic(tokens, header.slice(space + 1).trim()) : undefined;
    if (!principal) throw new ApiError('UNAUTHORIZED', `Missing or invalid API credentials; ${HOW}`, undefined, CHALLENGE);
    request.principal = principal;
    if (request.routeOptions.config.sandboxOnly && (principal.environment === 'production' || config.serviceEnv === 'production')) {
      throw routeNotFound(request.method, request.url);
    }
  };
}

async function fromBasic(tokens: TokenService, encoded: string): Promise<Principal | undefined> {
  if (encoded.length === 0 || encoded.length > 512) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  // No token id or secret holds a control character; PostgreSQL would refuse a NUL with an error.
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return undefined;
  // Secrets never contain a colon; the username may (`Token:<uuid>`), so split on the last one.
  const colon = decoded.lastIndexOf(':');
  if (colon < 1) return undefined;
  return tokens.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1));
}
