import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * Contact verification challenges (one outstanding code per customer and channel, with its expiry
 * and wrong attempts) and hosted KYC links (single-use, expiring, like card reveals).
 */
export const m025OnboardingLinks: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('contact_challenges')
      .addColumn('platform_id', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('contact_challenges_pk', ['platform_id', 'customer_id', 'channel'])
      .execute();
    await db.schema
      .createTable('kyc_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('redirect_uri', 'text')
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('kyc_links_by_customer').on('kyc_links').columns(['platform_id', 'customer_id', 'created_at']).execute();
  },
});
