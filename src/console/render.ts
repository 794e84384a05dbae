import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { permissionRank, type Permission, type Principal } from '../domain/platform/tokens.js';
import { advancedBy } from './clock.js';
import { NAV } from './nav.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the console's session check; the API's requests use `principal`. */
    consoleSession?: Principal;
  }
}

/** Renders a full console page: the layout gets the navigation, the signed-in token and a CSRF token for its forms. */
export function renderPage(request: FastifyRequest, reply: FastifyReply, template: string, data: Record<string, unknown>) {
  const principal = request.consoleSession;
  const csrf = reply.generateCsrf();
  return reply.type('text/html; charset=utf-8').view(template, {
    ...data,
    principal,
    clock: request.consoleClock,
    canAct: (needed: Permission) => principal !== undefined && permissionRank(principal.permission) >= permissionRank(needed),
    nav: NAV.map((item) => ({ ...item, current: request.url === item.href || request.url.startsWith(`${item.href}/`) || request.url.startsWith(`${item.href}?`) })),
    csrf,
    // Its forms' token (see FormSubmissions): one per page shown, so a form sent twice from it is done once.
    submission: randomUUID(),
    fmt,
  });
}

/** Renders a fragment (what a live region polls): no layout. */
export function renderFragment(reply: FastifyReply, template: string, data: Record<string, unknown>) {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').view(template, { ...data, fmt });
}

/** The signed-in principal of a page behind the session check. */
export function sessionOf(request: FastifyRequest): Principal {
  return request.consoleSession!;
}

/** Refuses an action the token may not take, as the API would, with a message a person reads. */
export function requirePermission(request: FastifyRequest, needed: Permission): Principal {
  const principal = sessionOf(request);
  if (permissionRank(principal.permission) < permissionRank(needed)) {
    throw new ApiError(
      'FORBIDDEN',
      `You are signed in with a ${principal.permission} token: the console shows everything, but this action needs a token with the ${needed} permission.`,
      { requiredPermission: needed },
    );
  }
  return principal;
}

/** Formatting the templates share. */
const fmt = {
  /** Minor units as a decimal amount with its currency code, from integers only. */
  money(amount: { amount: number; currency: { code: string; decimals?: number } } | undefined): string {
    if (!amount) return '';
    const decimals = amount.currency.decimals ?? 2;
    const sign = amount.amount < 0 ? '-' : '';
    const digits = String(Math.abs(amount.amount)).padStart(decimals + 1, '0');
    const whole = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
    return `${sign}${whole} ${amount.currency.code}`;
  },
  advancedBy,
  time(iso: string | undefined): string {
    return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '';
  },
  /** A query string keeping the current filters, with the given changes. */
  query(filters: Record<string, string | undefined>, change: Record<string, string | undefined> = {}): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...change })) if (v !== undefined && v !== '') params.set(k, v);
    const s = params.toString();
    return s ? `?${s}` : '';
  },
};
