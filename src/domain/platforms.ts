import { claimOnce } from '../store/settings-repo.js';
import type { Store } from '../store/store.js';
import { insertPlatform } from '../store/tokens-repo.js';
import { newId } from './ids.js';
import { PERMISSIONS, type CreatedApiToken, type Environment, type TokenService } from './tokens.js';

export async function createPlatform(store: Store, name: string): Promise<string> {
  const id = newId('Platform');
  await insertPlatform(store.db, { id, name, created_at: Date.now() });
  return id;
}

/** Creates a platform with one full-permission token, for a developer's first start or a seed. */
export async function createPlatformWithToken(
  store: Store,
  tokens: TokenService,
  name: string,
  environment: Environment = 'sandbox',
): Promise<{ platformId: string; token: CreatedApiToken }> {
  const platformId = await createPlatform(store, name);
  const token = await tokens.create(platformId, { name: `${name} token`, permissions: [...PERMISSIONS], environment });
  return { platformId, token };
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
