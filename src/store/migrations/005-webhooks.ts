import type { Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

export const m005Webhooks: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('platform_webhook_config')
      .addColumn('platform_id', 'text', (c) => c.primaryKey().references('platforms.id'))
      .addColumn('webhook_endpoint', 'text')
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id'))
      .addColumn('platform_id', 'text', (c) => c.notNull())
      .addColumn('attempted_at', 'bigint', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('latency_ms', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('response_excerpt', 'text')
      .execute();
    await db.schema.createIndex('webhook_attempts_event').on('webhook_attempts').columns(['event_id', 'id']).execute();

    // Delivery summary on the event, so the log lists without reading attempts.
    await db.schema.alterTable('webhook_events').addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('webhook_events').addColumn('last_attempt_at', 'bigint').execute();
    await db.schema.alterTable('webhook_events').addColumn('next_attempt_at', 'bigint').execute();
    await db.schema.alterTable('webhook_events').addColumn('delivered_at', 'bigint').execute();

    // The event log's filters, each keeping keyset order.
    await db.schema.createIndex('webhook_events_platform_state_page').on('webhook_events').columns(['platform_id', 'delivery_state', 'created_at', 'id']).execute();
    await db.schema.createIndex('webhook_events_platform_type_page').on('webhook_events').columns(['platform_id', 'type', 'created_at', 'id']).execute();
  },
});
