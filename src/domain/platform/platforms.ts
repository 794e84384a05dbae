import { claimOnce } from '../../store/settings-repo.js';
import type { Store } from '../../store/store.js';
import { findPlatform, findProductionScope, insertPlatform, insertProductionScopeIfMissing } from '../../store/tokens-repo.js';
import { newId } from '../shared/ids.js';
import { PERMISSIONS, type CreatedApiToken, type Environment, type TokenService } from './tokens.js';

export async function createPlatform(store: Store, name: string): Promise<string> {
  const id = newId('Platform');
  await insertPlatform(store.db, { id, name, created_at: Date.now() });
  return id;
}

/**
 * The data scope of a platform's environment: every row (tokens included) belongs to exactly one,
 * and a token's `platform_id` names it. The sandbox scope is the platform itself; the production
 * scope is its production twin, made on first need. `platformId` may name either scope of the
 * platform. Undefined for an unknown platform.
 */
export async function environmentScope(store: Store, platformId: string, environment: Environment): Promise<string | undefined> {
  const platform = await findPlatform(store.db, platformId);
  if (!platform) return undefined;
  const sandboxId = platform.sandbox_platform_id ?? platform.id;
  if (environment === 'sandbox') return sandboxId;
  const found = await findProductionScope(store.db, sandboxId);
  if (found) return found;
  const sandbox = sandboxId === platform.id ? platform : await findPlatform(store.db, sandboxId);
  await insertProductionScopeIfMissing(store.db, {
    id: newId('Platform'),
    name: `${sandbox?.name ?? sandboxId} (production)`,
    created_at: Date.now(),
    sandbox_platform_id: sandboxId,
  });
  return findProductionScope(store.db, sandboxId);
}

/**
 * Creates a platform with one full-permission token of `environment`, for a developer's first
 * start or a seed. `platformId` is the scope the token reaches (for production, the new
 * platform's production scope); `sandboxPlatformId` the platform itself.
 */
export async function createPlatformWithToken(
  store: Store,
  tokens: TokenService,
  name: string,
  environment: Environment = 'sandbox',
): Promise<{ platformId: string; sandboxPlatformId: string; token: CreatedApiToken }> {
  const sandboxPlatformId = await createPlatform(store, name);
  const platformId = (await environmentScope(store, sandboxPlatformId, environment))!;
  const token = await tokens.create(platformId, { name: `${name} token`, permissions: [...PERMISSIONS], environment });
  return { platformId, sandboxPlatformId, token };
}

/**
 * On the first start of an empty database, creates the sandbox platform and its first token.
 * Returns the token (with its secret) only to the one process that did so.
 */
export async function bootstrapIfEmpty(store: Store, tokens: TokenService): Promise<CreatedApiToken | undefined> {
  const any = await store.db.selectFrom('platforms').select('id').limit(1).executeTakeFirst();
  if (any) return undefined;
  if (!(await claimOnce(store.db, 'bootstrapped_at', String(Date.now())))) return undefined;
  const { token } = await createPlatformWithToken(store, tokens, 'Sandbox platform');
  return token;
}
