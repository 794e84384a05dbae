import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** Why a card transaction's authorization was declined (CARD_PAUSED, INSUFFICIENT_FUNDS); null for every other transaction. */
export const m013CardDeclines: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('card_transactions').addColumn('decline_reason', 'text').execute();
  },
});
