import type { Executor } from './store.js';
import type { CardRevealRow } from './tables/card-reveals.js';
import type { UnitOfWork } from './unit-of-work.js';

export async function insertCardReveal(uow: UnitOfWork, row: CardRevealRow): Promise<void> {
  await uow.db.insertInto('card_reveals').values(row).execute();
}

/** The platform a reveal belongs to (its clock decides whether it has expired). */
export async function findCardRevealPlatform(db: Executor, id: string): Promise<string | undefined> {
  return (await db.selectFrom('card_reveals').select('platform_id').where('id', '=', id).executeTakeFirst())?.platform_id;
}

/**
 * Marks the reveal used, if it is unused and not expired at `now`, and answers it; one statement,
 * so of two concurrent uses only one gets the row.
 */
export async function useCardReveal(db: Executor, id: string, now: number): Promise<CardRevealRow | undefined> {
  return db
    .updateTable('card_reveals')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}
