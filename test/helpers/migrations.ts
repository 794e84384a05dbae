import { Migrator, type Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import { openStore, type Store } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from './engines.js';
import { engineAvailable } from './test-app.js';

/**
 * One describe per engine, `title [engine]`, whose tests share a store on a new, empty test
 * database that no migration has run on: for a migration's tests, which build what an earlier
 * version wrote (migrateBefore) and then migrate.
 */
export function describeOnNewDatabase(title: string, body: (t: { readonly store: Store }) => void): void {
  for (const engine of ENGINES) {
    describe.skipIf(!engineAvailable(engine))(`${title} [${engine}]`, () => {
      let db: TestDatabase | undefined;
      let store: Store | undefined;
      beforeAll(async () => {
        db = await createTestDatabase(engine);
        store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      });
      afterAll(async () => {
        await store?.close();
        await db?.drop();
      });
      body({
        get store() {
          if (!store) throw new Error('the store opens before the tests run');
          return store;
        },
      });
    });
  }
}

/** Runs every migration numbered before `first` (e.g. '012'), as a database made by an earlier version would be. */
export async function migrateBefore(store: Store, first: string): Promise<void> {
  const before: Record<string, Migration> = {};
  for (const [name, make] of Object.entries(migrations)) if (name < first) before[name] = make(store.engine);
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => before } });
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
}
