import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';
import { assignListPositions } from './list-clock.js';

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

const scope = new AsyncLocalStorage<Trx>();

/** The transaction open in this async context, if any: repositories and services write through it. */
export function scopedTransaction(): Trx | undefined {
  return scope.getStore();
}

/**
 * Runs `fn` in a transaction. Inside another scoped transaction it joins that one (so an outer
 * caller, e.g. the idempotency record of a request, commits or rolls back with the work);
 * otherwise it opens one on `db` and scopes it to `fn`'s async context. Rows the transaction put
 * on a platform's lists get their positions last, just before the commit.
 */
export async function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const open = scope.getStore();
  if (open) return fn(open);
  return db.transaction().execute((trx) =>
    scope.run(trx, async () => {
      const result = await fn(trx);
      await assignListPositions(trx);
      return result;
    }),
  );
}
