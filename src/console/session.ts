import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Environment, Permission, Principal } from '../domain/platform/tokens.js';

export const SESSION_COOKIE = 'console_session';
/** A session ends this long after sign-in, whatever happens meanwhile. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

interface SessionClaims {
  tokenId: string;
  platformId: string;
  environment: Environment;
  permission: Permission;
  expiresAt: number;
}

/**
 * Stateless sessions: the cookie carries the principal and its expiry, signed with a key every
 * process derives from the same stored secret, so any process of a PostgreSQL deployment accepts
 * it with no session table; revocation still ends it at once, as each request checks the token is live.
 */
export class ConsoleSessions {
  constructor(private readonly key: Buffer, private readonly now: () => number) {}

  issue(principal: Principal): { value: string; expiresAt: number } {
    const expiresAt = this.now() + SESSION_TTL_MS;
    const claims: SessionClaims = { tokenId: principal.tokenId, platformId: principal.platformId, environment: principal.environment, permission: principal.permission, expiresAt };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return { value: `${payload}.${this.mac(payload)}`, expiresAt };
  }

  /** The principal a cookie names, if its signature holds and it has not expired; the caller checks the token is live. */
  read(cookie: string | undefined): Principal | undefined {
    if (!cookie || cookie.length > 2048) return undefined;
    const dot = cookie.indexOf('.');
    if (dot < 0) return undefined;
    const payload = cookie.slice(0, dot);
    const given = Buffer.from(cookie.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(payload), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SessionClaims;
    if (!(claims.expiresAt > this.now())) return undefined;
    return { tokenId: claims.tokenId, platformId: claims.platformId, environment: claims.environment, permission: claims.permission };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
