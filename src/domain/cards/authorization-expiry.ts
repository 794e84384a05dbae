import type { Logger } from '../../logger.js';
import { dueAuthorizations } from '../../store/clock-repo.js';
import * as repo from '../../store/cards-repo.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { landOperations, newOperation, type CardSimulationJob } from './card-simulations.js';

/** Authorizations one unit of work expires: short transactions, a few statements each whatever the count. */
export const EXPIRY_BATCH = 500;

/**
 * Expires, in batches, every fully open authorization of the platform whose time-to-live ran out by
 * `platformNow`, exactly as the authorization_expiry simulator lands: an AUTHORIZATION_EXPIRY
 * operation, status EXPIRED, the hold released through the ledger, one CARD_TRANSACTION.EXPIRED
 * webhook. Each batch commits on its own and re-checks each row under its lock, so a process killed
 * midway leaves the rest for the next advance or sweep, and none expires twice. Answers how many expired.
 */
export async function expireDueAuthorizations(store: Store, a: { platformId: string; platformNow: number; defaultTtlMs: number }, log: Logger): Promise<number> {
  let expired = 0;
  for (;;) {
    const n = await store.transaction((uow) => expireBatch(uow, a, log));
    expired += n.expired;
    if (n.found < EXPIRY_BATCH) return expired;
  }
}

async function expireBatch(uow: UnitOfWork, a: { platformId: string; platformNow: number; defaultTtlMs: number }, log: Logger): Promise<{ found: number; expired: number }> {
  const ids = await dueAuthorizations(uow, { ...a, limit: EXPIRY_BATCH });
  const rows = (await repo.lockCardTransactions(uow, ids)).filter((r) => r.platform_id === a.platformId && r.status === 'AUTHORIZED' && r.settled_amount === 0);
  const operations = rows.map((row) => newOperation(row, 'AUTHORIZATION_EXPIRY', a.platformNow));
  await repo.insertCardOperations(uow, operations);
  await repo.bumpNextSeq(uow.db, rows.map((r) => r.id));
  const jobs: CardSimulationJob[] = operations.map((o) => ({ platformId: a.platformId, cardTransactionId: o.card_transaction_id, operationId: o.id }));
  if (jobs.length > 0) await landOperations(uow, jobs, log, { now: a.platformNow });
  return { found: ids.length, expired: jobs.length };
}
