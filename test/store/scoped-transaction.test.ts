import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { insertPlatform } from '../../src/store/tokens-repo.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { engineAvailable } from '../helpers/test-app.js';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`store.transaction scoped to the async context [${engine}]`, () => {
    let db: TestDatabase;
    let store: Store;
    const names = async (prefix: string) =>
      (await store.db.selectFrom('platforms').select('name').where('id', 'like', `${prefix}%`).orderBy('name').execute()).map((r) => r.name);

    beforeAll(async () => {
      db = await createTestDatabase(engine);
      store = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      await migrateToLatest(store);
    });
    afterAll(async () => {
      await store.close();
      await db.drop();
    });

    // What a service does: a write through store.db and one in its own store.transaction.
    const serviceWork = async (prefix: string) => {
      await insertPlatform(store.db, { id: `${prefix}a`, name: `${prefix}a`, created_at: 1 });
      await new Promise((r) => setTimeout(r, 5));
      await store.transaction((trx) => insertPlatform(trx, { id: `${prefix}b`, name: `${prefix}b`, created_at: 2 }));
    };

    it('an outer transaction that fails takes back the writes made inside it, through store.db and a nested store.transaction', async () => {
      await expect(
        store.transaction(async (trx) => {
          await serviceWork('Platform:rolled-');
          await insertPlatform(trx, { id: 'Platform:rolled-c', name: 'Platform:rolled-c', created_at: 3 });
          expect(await names('Platform:rolled-')).toEqual(['Platform:rolled-a', 'Platform:rolled-b', 'Platform:rolled-c']);
          throw new Error('after the work');
        }),
      ).rejects.toThrow('after the work');
      expect(await names('Platform:rolled-')).toEqual([]);
    });

    it('an outer transaction that commits commits them together', async () => {
      await store.transaction(async (trx) => {
        await serviceWork('Platform:kept-');
        await insertPlatform(trx, { id: 'Platform:kept-c', name: 'Platform:kept-c', created_at: 3 });
      });
      expect(await names('Platform:kept-')).toEqual(['Platform:kept-a', 'Platform:kept-b', 'Platform:kept-c']);
    });

    it('a held transaction scopes the work it runs, and afterCommit waits for its commit (never runs on a rollback)', async () => {
      const signals: string[] = [];
      const kept = await store.hold();
      await kept.run(async () => {
        await serviceWork('Platform:held-');
        store.afterCommit(() => signals.push('kept'));
      });
      expect(signals).toEqual([]);
      await kept.commit();
      expect(signals).toEqual(['kept']);
      expect(await names('Platform:held-')).toEqual(['Platform:held-a', 'Platform:held-b']);

      const dropped = await store.hold();
      await dropped.run(async () => {
        await serviceWork('Platform:dropped-');
        store.afterCommit(() => signals.push('dropped'));
      });
      await dropped.rollback();
      expect(signals).toEqual(['kept']);
      expect(await names('Platform:dropped-')).toEqual([]);
      // Outside a transaction it runs at once; inside one of its own, once that commits.
      store.afterCommit(() => signals.push('plain'));
      await store.transaction(async () => {
        store.afterCommit(() => signals.push('own'));
        expect(signals).toEqual(['kept', 'plain']);
      });
      expect(signals).toEqual(['kept', 'plain', 'own']);
    });

    it('outside any transaction store.db is the database and the work commits as it goes', async () => {
      await serviceWork('Platform:plain-');
      expect(await names('Platform:plain-')).toEqual(['Platform:plain-a', 'Platform:plain-b']);
    });
  });
}
