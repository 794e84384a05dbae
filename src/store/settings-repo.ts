import { randomBytes } from 'node:crypto';
import type { Executor } from './store.js';

/**
 * Returns the server secret stored under `key`, creating it on first use. Insert-or-ignore then
 * read, so processes starting together agree on one value.
 */
export async function loadOrCreateSecret(db: Executor, key: string): Promise<Buffer> {
  await db
    .insertInto('server_settings')
    .values({ key, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('server_settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'hex');
}

/** Claims a one-time marker; true only for the caller that created it. */
export async function claimOnce(db: Executor, key: string, value: string): Promise<boolean> {
  const result = await db
    .insertInto('server_settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
