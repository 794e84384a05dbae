import { Migrator, type Migration } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Engine, Store } from './store.js';

/** Applies every pending migration in order; safe to call from several processes at once. */
export async function migrateToLatest(store: Store): Promise<void> {
  const provider = {
    async getMigrations(): Promise<Record<string, Migration>> {
      const out: Record<string, Migration> = {};
      for (const [name, make] of Object.entries(migrations)) out[name] = make(store.engine);
      return out;
    },
  };
  const { error, results } = await new Migrator({ db: store.db, provider }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`);
  }
}

export type MigrationFactory = (engine: Engine) => Migration;
