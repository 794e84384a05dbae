import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** A card's per-transaction spending limit in minor units (`maxSpendPerTransaction`); null, as on every existing card, means none. */
export const m016CardSpendLimits: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cards').addColumn('max_spend_per_transaction', 'bigint').execute();
  },
});
