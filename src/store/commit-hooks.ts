import { assignListPositions, carryListPositions } from './list-clock.js';
import type { Trx } from './store.js';

/** Work a transaction (or savepoint) has asked to run as its last statements, by key. */
type Hook = (trx: Trx) => Promise<void>;
const pending = new WeakMap<Trx, Map<string, Hook>>();

/**
 * Runs `hook` in `trx` just before it commits (never if it rolls back). A later hook with the same
 * key replaces an earlier one, so work asked for many times in one transaction runs once, with
 * the latest state: e.g. one balance event per account per commit, however many operations of a
 * worker's group commit moved it.
 */
export function beforeCommit(trx: Trx, key: string, hook: Hook): void {
  let hooks = pending.get(trx);
  if (!hooks) pending.set(trx, (hooks = new Map()));
  hooks.delete(key); // re-inserted last: hooks run in the order of their latest request
  hooks.set(key, hook);
}

/** A released savepoint's hooks and list rows join its transaction's (a rolled-back savepoint's are dropped). */
export function carryToTransaction(savepoint: Trx, trx: Trx): void {
  const hooks = pending.get(savepoint);
  pending.delete(savepoint);
  for (const [key, hook] of hooks ?? []) beforeCommit(trx, key, hook);
  carryListPositions(savepoint, trx);
}

/** The last statements of every transaction: the hooks asked for, then the list positions (rows the hooks add get theirs too). */
export async function finishBeforeCommit(trx: Trx): Promise<void> {
  const hooks = pending.get(trx);
  pending.delete(trx);
  for (const hook of hooks?.values() ?? []) await hook(trx);
  await assignListPositions(trx);
}
