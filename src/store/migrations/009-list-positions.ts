import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from '../migrator.js';

/** Each list's page indexes: (name, table, leading columns before the position and id). */
const PAGE_INDEXES: [string, string, string[]][] = [
  ['api_tokens_platform_page', 'api_tokens', ['platform_id']],
  ['customers_platform_page', 'customers', ['platform_id']],
  ['cards_platform_page', 'cards', ['platform_id']],
  ['cards_holder_page', 'cards', ['platform_id', 'cardholder_id']],
  ['card_transactions_platform_page', 'card_transactions', ['platform_id']],
  ['card_transactions_card_page', 'card_transactions', ['platform_id', 'card_id']],
  ['webhook_events_platform_page', 'webhook_events', ['platform_id']],
  ['webhook_events_platform_state_page', 'webhook_events', ['platform_id', 'delivery_state']],
  ['webhook_events_platform_type_page', 'webhook_events', ['platform_id', 'type']],
];

/**
 * Positions given in commit order, so a client following `nextCursor` never passes a row that
 * commits later. Each platform list's rows get `list_position`, given at commit from the
 * platform's `list_clock` (store/list-clock.ts), and the lists' indexes lead with it instead of
 * `created_at`; each customer keeps `owner_clock`, the last creation time stamped on its owners
 * (countNewOwner). Existing rows keep their creation time as position, and both clocks start at
 * the newest existing row, so a new row is never placed before one already listed.
 */
export const m009ListPositions: MigrationFactory = (engine) => ({
  async up(db: Kysely<any>) {
    const tables = [...new Set(PAGE_INDEXES.map(([, table]) => table))];
    for (const table of tables) {
      await db.schema.alterTable(table).addColumn('list_position', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
      await sql`update ${sql.table(table)} set list_position = created_at`.execute(db);
    }
    for (const [name, table, leading] of PAGE_INDEXES) {
      await db.schema.dropIndex(name).execute();
      await db.schema.createIndex(name).on(table).columns([...leading, 'list_position', 'id']).execute();
    }
    await db.schema.alterTable('platforms').addColumn('list_clock', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    const newest = (table: string) => sql`coalesce((select max(list_position) from ${sql.table(table)} t where t.platform_id = platforms.id), 0)`;
    const largest = sql.raw(engine === 'postgres' ? 'greatest' : 'max');
    await sql`update platforms set list_clock = ${largest}(${sql.join(tables.map(newest))})`.execute(db);
    await db.schema.alterTable('customers').addColumn('owner_clock', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await sql`update customers set owner_clock = coalesce((select max(created_at) from beneficial_owners o where o.customer_id = customers.id), 0)`.execute(db);
  },
});
