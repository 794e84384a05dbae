import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';
import { finishBeforeCommit } from './commit-hooks.js';
import type { Engine, Store } from './store.js';

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

const scope = new AsyncLocalStorage<Trx>();
/** Callbacks waiting for a scoped transaction to commit (dropped with it when it rolls back). */
const committed = new WeakMap<Trx, (() => void)[]>();

/** The transaction open in this async context, if any: repositories and services write through it. */
export function scopedTransaction(): Trx | undefined {
  return scope.getStore();
}

/**
 * Runs `fn` in a transaction. Inside another scoped transaction it joins that one (so an outer
 * caller, e.g. the idempotency record of a request, commits or rolls back with the work);
 * otherwise it opens one on `db` and scopes it to `fn`'s async context. Its before-commit hooks run
 * last, then the rows it put on a platform's lists get their positions, just before the commit.
 */
export async function inTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  const open = scope.getStore();
  if (open) return fn(open);
  let opened: Trx | undefined;
  const result = await db.transaction().execute((trx) => {
    opened = trx;
    return scope.run(trx, async () => {
      const result = await fn(trx);
      await finishBeforeCommit(trx);
      return result;
    });
  });
  runCommitted(opened!);
  return result;
}

/**
 * Runs `fn` once what this async context wrote is committed: at once outside a scoped transaction,
 * else after the scoped transaction commits (never if it rolls back). For signals such as "a job
 * was enqueued" that must not reach another connection before the rows do.
 */
export function afterCommit(fn: () => void): void {
  const open = scope.getStore();
  if (!open) return fn();
  const waiting = committed.get(open);
  if (waiting) waiting.push(fn);
  else committed.set(open, [fn]);
}

function runCommitted(trx: Trx): void {
  const waiting = committed.get(trx);
  committed.delete(trx);
  for (const fn of waiting ?? []) fn();
}

/** A transaction held open across several steps (e.g. the hooks of one HTTP request), ended explicitly. */
export interface HeldTransaction {
  readonly trx: Trx;
  /** Runs `fn` with this transaction scoped: store.transaction joins it and store.db is it. */
  run<T>(fn: () => T): T;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export async function holdTransaction(db: Db): Promise<HeldTransaction> {
  const trx = await db.startTransaction().execute();
  return {
    trx,
    run: (fn) => scope.run(trx, fn),
    commit: async () => {
      await scope.run(trx, () => finishBeforeCommit(trx));
      await trx.commit().execute();
      runCommitted(trx);
    },
    rollback: async () => {
      committed.delete(trx);
      if (!trx.isCommitted && !trx.isRolledBack) await trx.rollback().execute();
    },
  };
}

/** The Store members shared by both engines: `db` follows the scoped transaction. */
export function scopedStore(root: Db, engine: Engine, read: Store['read'], close: Store['close']): Store {
  return {
    get db(): Db {
      return scopedTransaction() ?? root;
    },
    engine,
    read,
    close,
    transaction: (fn) => inTransaction(root, fn),
    afterCommit,
    hold: () => holdTransaction(root),
  };
}
