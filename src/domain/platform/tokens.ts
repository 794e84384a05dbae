import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Store } from '../../store/store.js';
import type { ApiTokenRow } from '../../store/tables/foundation.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import * as repo from '../../store/tokens-repo.js';
import { NotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { instant, listScope, type Cursors, type Page } from '../shared/pagination.js';
import type { PlatformClock } from './platform-clock.js';

export type Environment = 'sandbox' | 'production';
export const PERMISSIONS = ['VIEW', 'TRANSACT', 'MANAGE'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The Grid document's token list filters; the four times are ISO 8601 date-times. */
export interface TokenListFilters {
  name?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
}

/** Who is calling: resolved once per request from the credentials. */
export interface Principal {
  platformId: string;
  tokenId: string;
  environment: Environment;
  /** The highest permission the token holds; each permission includes those below it. */
  permission: Permission;
  /**
   * Set when the secret was verified by an earlier request of this process and the token was not
   * read for this one: the operation must itself confirm that the token is not revoked (in the
   * statement that reads its data, or before any answer). See {@link TokenService.authenticate}.
   */
  unconfirmed?: true;
}

/** Verified tokens remembered per process; past this many the least recently used is forgotten (only successful authentications add one). */
const MAX_REMEMBERED = 10_000;

/** VIEW reads; TRANSACT also creates and changes; MANAGE also manages tokens and configuration. */
export function permissionRank(permission: Permission): number {
  return PERMISSIONS.indexOf(permission);
}

/** The highest of a token's permissions. */
export function highestPermission(permissions: readonly Permission[]): Permission {
  let best: Permission = 'VIEW';
  for (const p of permissions) if (permissionRank(p) > permissionRank(best)) best = p;
  return best;
}

export interface ApiToken {
  id: string;
  name: string;
  permissions: Permission[];
  clientId: string;
  environment: Environment;
  createdAt: string;
  updatedAt: string;
}

export interface CreatedApiToken extends ApiToken {
  clientSecret: string;
}

/** SHA-256 of the secret, one-shot (half the cost of a Hash object on every request). */
const digest = (secret: string) => hash('sha256', secret, 'buffer');
// Compared against when the token id is unknown, so a miss costs what a hit costs.
const DECOY = digest('decoy');

/** The Basic-auth username: the uuid of the token id, without dashes (no colon, as RFC 7617 needs). */
export function clientIdOf(tokenId: string): string {
  return tokenId.slice('Token:'.length).replace(/-/g, '');
}

/** Accepts either form of the username: `Token:<uuid>` or the clientId. */
export function tokenIdFromUsername(username: string): string | undefined {
  if (username.startsWith('Token:')) return username;
  if (!/^[0-9a-f]{32}$/i.test(username)) return undefined;
  const h = username.toLowerCase();
  return `Token:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function renderToken(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    permissions: JSON.parse(row.permissions) as Permission[],
    clientId: clientIdOf(row.id),
    environment: row.environment,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export class TokenService {
  private readonly tokenForAuth: ReturnType<typeof repo.tokenForAuthQuery>;
  private readonly tokenIsLive: ReturnType<typeof repo.tokenIsLiveQuery>;
  /** Token id -> the digest of its secret and its principal, for tokens this process has verified. */
  private readonly verified = new LRUCache<string, { secretDigest: Buffer; principal: Principal }>({ max: MAX_REMEMBERED });

  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
    private readonly clock: PlatformClock,
  ) {
    this.tokenForAuth = repo.tokenForAuthQuery(store);
    this.tokenIsLive = repo.tokenIsLiveQuery(store);
  }

  /**
   * Resolves credentials to a principal, or undefined; never says which part was wrong.
   *
   * `confirmedByOperation`: the operation confirms the token is live itself, in the same statement
   * that reads its data. Then a token this process has verified before is not read again: the
   * principal comes back `unconfirmed`, and the request costs one round trip to the database
   * instead of two. Revocation stays immediate in every process, because the operation's own
   * statement (or, before an error answer, {@link isLive}) sees it. A token's platform, environment
   * and permissions never change, so nothing else in the remembered principal can go stale.
   */
  async authenticate(username: string, secret: string, confirmedByOperation = false): Promise<Principal | undefined> {
    const id = tokenIdFromUsername(username);
    const secretDigest = digest(secret);
    if (confirmedByOperation && id !== undefined) {
      const known = this.verified.get(id);
      if (known && timingSafeEqual(known.secretDigest, secretDigest)) return { ...known.principal, unconfirmed: true };
    }
    const row = id === undefined ? undefined : await this.tokenForAuth.first({ id });
    const expected = row ? Buffer.from(row.secret_hash, 'hex') : DECOY;
    const matches = expected.length === 32 && timingSafeEqual(expected, secretDigest);
    if (!row || !matches || row.revoked_at !== null) return undefined;
    const principal: Principal = { platformId: row.platform_id, tokenId: row.id, environment: row.environment, permission: highestPermission(JSON.parse(row.permissions) as Permission[]) };
    this.verified.set(row.id, { secretDigest, principal });
    return principal;
  }

  /** Whether the token is still live (not revoked); a token found revoked is forgotten. */
  async isLive(tokenId: string): Promise<boolean> {
    const live = (await this.tokenIsLive.first({ id: tokenId })) !== undefined;
    if (!live) this.forget(tokenId);
    return live;
  }

  /** Drops a remembered token, so its next request reads it again. */
  forget(tokenId: string): void {
    this.verified.delete(tokenId);
  }

  /** `within`: the request's unit of work, when it has one (an Idempotency-Key). */
  async create(
    platformId: string,
    input: { name: string; permissions: Permission[]; environment: Environment },
    within?: UnitOfWork,
  ): Promise<CreatedApiToken> {
    const secret = randomBytes(32).toString('base64url');
    const now = await this.clock.now(platformId);
    const row: ApiTokenRow = {
      id: newId('Token'),
      platform_id: platformId,
      name: input.name,
      permissions: JSON.stringify([...new Set(input.permissions)]),
      environment: input.environment,
      secret_hash: digest(secret).toString('hex'),
      created_at: now,
      updated_at: now,
      revoked_at: null,
    };
    await this.store.transaction((uow) => repo.insertToken(uow, row), within);
    return { ...renderToken(row), clientSecret: secret };
  }

  async get(platformId: string, id: string): Promise<ApiToken> {
    const row = await repo.findToken(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('Token', id);
    return renderToken(row);
  }

  /** Oldest first; the time bounds are inclusive. */
  async list(platformId: string, limit: number, cursor: string | undefined, filters: TokenListFilters): Promise<Page<ApiToken>> {
    const bounds = {
      createdFrom: instant('createdAfter', filters.createdAfter),
      createdTo: instant('createdBefore', filters.createdBefore),
      updatedFrom: instant('updatedAfter', filters.updatedAfter),
      updatedTo: instant('updatedBefore', filters.updatedBefore),
    };
    const scope = listScope('tokens', platformId, { ...filters });
    const q = this.cursors.query(scope, limit, cursor);
    const { rows, total } = await repo.listTokens(this.store.db, platformId, q, { name: filters.name, ...bounds });
    return this.cursors.page(scope, q, rows, total, renderToken);
  }

  async revoke(platformId: string, id: string): Promise<void> {
    if (!(await repo.revokeToken(this.store.db, platformId, id, await this.clock.now(platformId)))) throw new NotFoundError('Token', id);
    this.forget(id);
  }
}
