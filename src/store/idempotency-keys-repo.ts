// Written once per engine: lockIdempotencyKey and pruneIdempotencyKeys.
import { sql } from 'kysely';
import type { Executor, Queryable } from './store.js';
import type { IdempotencyKeyRow } from './tables/idempotency-keys.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Takes the (token, key) slot for the rest of the transaction; false when another transaction
 * holds it. PostgreSQL: a transaction-scoped advisory lock, so a second process answers at once
 * instead of waiting on the first one's uncommitted row. SQLite: the transaction began IMMEDIATE,
 * so it already excludes every other writer.
 */
export async function lockIdempotencyKey(uow: UnitOfWork, tokenId: string, keySha256: string): Promise<boolean> {
  if (uow.engine === 'sqlite') return true;
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${`${tokenId} ${keySha256}`}::text, 0)) as locked`.execute(uow.db);
  return rows[0]?.locked === true;
}

export async function findIdempotencyKey(db: Executor, tokenId: string, keySha256: string): Promise<IdempotencyKeyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('token_id', '=', tokenId).where('key_sha256', '=', keySha256).executeTakeFirst();
}

export async function deleteIdempotencyKey(db: Executor, tokenId: string, keySha256: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('token_id', '=', tokenId).where('key_sha256', '=', keySha256).execute();
}

export async function insertIdempotencyKey(db: Executor, row: IdempotencyKeyRow): Promise<void> {
  await db.insertInto('idempotency_keys').values(row).execute();
}

/** Deletes at most `limit` records expired at `now`; returns how many. On PostgreSQL rows another transaction holds are left for later. */
export async function pruneIdempotencyKeys(on: Queryable, now: number, limit: number): Promise<number> {
  const r = await on.db
    .deleteFrom('idempotency_keys')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('token_id', 'key_sha256'),
        'in',
        selectFrom('idempotency_keys')
          .select(['token_id', 'key_sha256'])
          .where('expires_at', '<=', now)
          .limit(limit)
          .$if(on.engine === 'postgres', (q) => q.forUpdate().skipLocked())
          .$asTuple('token_id', 'key_sha256'),
      ),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
