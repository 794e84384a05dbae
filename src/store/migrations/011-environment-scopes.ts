import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { MigrationFactory } from '../migrator.js';

/**
 * Each (platform, environment) becomes its own data scope. The sandbox scope is the platform's own
 * row, so every existing row stays where it is; the production scope is a second row of
 * `platforms` naming its sandbox platform in `sandbox_platform_id` (at most one per platform).
 * Existing production tokens move to their platform's production scope, made here; what they
 * created before stays in the sandbox scope, where it was written.
 */
export const m011EnvironmentScopes: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema.alterTable('platforms').addColumn('sandbox_platform_id', 'text', (c) => c.references('platforms.id')).execute();
    await db.schema.createIndex('platforms_production_scope').on('platforms').column('sandbox_platform_id').unique().execute();
    const platforms = await db
      .selectFrom('platforms')
      .select(['id', 'name', 'list_clock'])
      .where('id', 'in', db.selectFrom('api_tokens').select('platform_id').where('environment', '=', 'production'))
      .orderBy('id')
      .execute();
    const now = Date.now();
    for (const p of platforms) {
      const scope = `Platform:${uuidv7()}`;
      // The moved tokens keep their list positions: the new scope's clock starts past them.
      await db
        .insertInto('platforms')
        .values({ id: scope, name: `${p.name as string} (production)`, created_at: now, list_clock: p.list_clock, sandbox_platform_id: p.id })
        .execute();
      await db.updateTable('api_tokens').set({ platform_id: scope }).where('platform_id', '=', p.id).where('environment', '=', 'production').execute();
    }
  },
});
