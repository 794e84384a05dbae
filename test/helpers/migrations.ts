import { Migrator, type Migration } from 'kysely';
import { expect } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import type { Store } from '../../src/store/store.js';

/** Runs every migration numbered before `first` (e.g. '012'), as a database made by an earlier version would be. */
export async function migrateBefore(store: Store, first: string): Promise<void> {
  const before: Record<string, Migration> = {};
  for (const [name, make] of Object.entries(migrations)) if (name < first) before[name] = make(store.engine);
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => before } });
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
}
