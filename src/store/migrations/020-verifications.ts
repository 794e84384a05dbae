import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/**
 * Verifications (POST /verifications): one row per submission, on the platform's lists like the
 * other listed tables (009). The sandbox no longer approves new customers by itself: the queued
 * approval jobs of the removed `customer.kyc_auto_approval` kind are deleted (no handler claims
 * them any more), and so is each platform's switch for it (`sandbox_kyc_auto_approval`, 012); every
 * customer keeps the status it has, so one already approved stays approved.
 */
export const m020Verifications: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('verifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('platform_id', 'text', (c) => c.notNull().references('platforms.id'))
      .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('errors', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('list_position', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('verifications_platform_page').on('verifications').columns(['platform_id', 'list_position', 'id']).execute();
    await db.schema.createIndex('verifications_customer_page').on('verifications').columns(['platform_id', 'customer_id', 'list_position', 'id']).execute();
    await sql`delete from jobs where kind = 'customer.kyc_auto_approval'`.execute(db);
    await db.schema.alterTable('platform_webhook_config').dropColumn('sandbox_kyc_auto_approval').execute();
  },
});
