import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * A card transaction's direction (DEBIT, or CREDIT for a credit authorization) and the simulator
 * operation that opened it (AUTHORIZATION, FINANCIAL_AUTHORIZATION, BALANCE_INQUIRY, ...); every
 * existing one is a DEBIT opened by an AUTHORIZATION.
 */
export const m017CardDirections: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('card_transactions').addColumn('direction', 'text', (c) => c.notNull().defaultTo('DEBIT')).execute();
    await db.schema.alterTable('card_transactions').addColumn('opened_by', 'text', (c) => c.notNull().defaultTo('AUTHORIZATION')).execute();
  },
});
