import { sql, type RawBuilder } from 'kysely';
import type { Database } from './database.js';
import { keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import { PreparedRead } from './prepared.js';
import type { Executor, Store } from './store.js';
import type { ApiTokenRow } from './tables/foundation.js';
import type { UnitOfWork } from './unit-of-work.js';

export async function insertPlatform(db: Executor, row: { id: string; name: string; created_at: number }): Promise<void> {
  await db.insertInto('platforms').values(row).execute();
}

export async function findPlatform(db: Executor, id: string): Promise<{ id: string; name: string; sandbox_platform_id: string | null } | undefined> {
  const row = await db.selectFrom('platforms').select(['id', 'name', 'sandbox_platform_id']).where('id', '=', id).executeTakeFirst();
  return row && { ...row, sandbox_platform_id: row.sandbox_platform_id ?? null };
}

/** The production scope of a sandbox platform, if it has one yet. */
export async function findProductionScope(db: Executor, sandboxPlatformId: string): Promise<string | undefined> {
  const row = await db.selectFrom('platforms').select('id').where('sandbox_platform_id', '=', sandboxPlatformId).executeTakeFirst();
  return row?.id;
}

/** Inserts a production scope unless the platform has one already (processes racing here agree on the first). */
export async function insertProductionScopeIfMissing(db: Executor, row: { id: string; name: string; created_at: number; sandbox_platform_id: string }): Promise<void> {
  await db.insertInto('platforms').values(row).onConflict((oc) => oc.column('sandbox_platform_id').doNothing()).execute();
}

/** The first sandbox platform made, if any. */
export async function firstSandboxPlatform(db: Executor): Promise<string | undefined> {
  const row = await db.selectFrom('platforms').select('id').where('sandbox_platform_id', 'is', null).orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

/** Inserts a token, placed on the tokens list when the unit of work commits (see insertListed). */
export async function insertToken(uow: UnitOfWork, row: ApiTokenRow): Promise<void> {
  await insertListed(uow, 'api_tokens', row, (db, r) => db.insertInto('api_tokens').values(r).execute());
}

/** The hot path of every request: one primary-key read, compiled once. */
export function tokenForAuthQuery(store: Store) {
  return new PreparedRead(
    store,
    (db, a: { id: string }) =>
      db.selectFrom('api_tokens').select(['id', 'platform_id', 'environment', 'permissions', 'secret_hash', 'revoked_at']).where('id', '=', a.id).compile(),
    { id: '\u0000id' },
  );
}

/**
 * 1 when the token (a value, or a column of the statement it sits in) exists and is not revoked,
 * else 0: for a statement that confirms the request's token while it reads or writes (see
 * Principal.unconfirmed).
 */
export function liveTokenCount(tokenId: string | RawBuilder<unknown>) {
  return sql<number>`(select count(*) from api_tokens where id = ${tokenId} and revoked_at is null)`;
}

/** One row when the token exists and is not revoked. */
export function tokenIsLiveQuery(store: Store) {
  return new PreparedRead(
    store,
    (db, a: { id: string }) => db.selectFrom('api_tokens').select('id').where('id', '=', a.id).where('revoked_at', 'is', null).compile(),
    { id: '\u0000id' },
  );
}

export async function findToken(db: Executor, platformId: string, id: string): Promise<ApiTokenRow | undefined> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('id', '=', id)
    .where('platform_id', '=', platformId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export interface TokenFilters {
  name?: string | undefined;
  /** Epoch ms bounds, each inclusive. */
  createdFrom?: number | undefined;
  createdTo?: number | undefined;
  updatedFrom?: number | undefined;
  updatedTo?: number | undefined;
}

export async function listTokens(db: Executor, platformId: string, q: PageQuery, f: TokenFilters): Promise<{ rows: ApiTokenRow[]; total: number }> {
  let base = db.selectFrom('api_tokens').where('platform_id', '=', platformId).where('revoked_at', 'is', null);
  if (f.name !== undefined) base = base.where('name', '=', f.name);
  if (f.createdFrom !== undefined) base = base.where('created_at', '>=', f.createdFrom);
  if (f.createdTo !== undefined) base = base.where('created_at', '<=', f.createdTo);
  if (f.updatedFrom !== undefined) base = base.where('updated_at', '>=', f.updatedFrom);
  if (f.updatedTo !== undefined) base = base.where('updated_at', '<=', f.updatedTo);
  return keysetPage<ApiTokenRow, Database, 'api_tokens'>(base, q);
}

export async function revokeToken(db: Executor, platformId: string, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now, updated_at: now })
    .where('id', '=', id)
    .where('platform_id', '=', platformId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function listAllTokens(db: Executor): Promise<ApiTokenRow[]> {
  return db.selectFrom('api_tokens').selectAll().where('revoked_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}
