import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * Card states with their reason, and the sandbox KYC switch. A card gets `state_reason` (why it is
 * CLOSED); each platform's config gets `sandbox_kyc_auto_approval` (1: a new sandbox customer's
 * KYC/KYB is approved shortly after creation). Cards issued before funding sources were required
 * get their cardholder's account in the card's currency, so every card names at least one.
 */
export const m012CardLifecycle: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cards').addColumn('state_reason', 'text').execute();
    await db.schema.alterTable('platform_webhook_config').addColumn('sandbox_kyc_auto_approval', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    await sql`update cards set funding_sources = (
      select '["' || a.id || '"]' from internal_accounts a
      where a.customer_id = cards.cardholder_id and a.type = 'INTERNAL_FIAT' and a.currency = cards.currency)
      where funding_sources = '[]' and exists (
        select 1 from internal_accounts a where a.customer_id = cards.cardholder_id and a.type = 'INTERNAL_FIAT' and a.currency = cards.currency)`.execute(db);
  },
});
