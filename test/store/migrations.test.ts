import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { migrations } from '../../src/store/migrations/index.js';
import { loadOrCreateSecret } from '../../src/store/settings-repo.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { engineAvailable } from '../helpers/test-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`migrations [${engine}]`, () => {
    let db: TestDatabase;
    const stores: Store[] = [];
    const open = () => {
      const s = openStore({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      stores.push(s);
      return s;
    };
    beforeAll(async () => {
      db = await createTestDatabase(engine);
    });
    afterAll(async () => {
      for (const s of stores) await s.close();
      await db.drop();
    });

    it('applies every migration once, even from several processes starting together', async () => {
      // Real processes: better-sqlite3 is synchronous, so connections in one process cannot wait on each other.
      const cli = () => run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'tokens', 'list', '--json'], { cwd: ROOT, env: { ...process.env, ...db.env } });
      const outs = await Promise.all([cli(), cli(), cli()]);
      for (const o of outs) expect(JSON.parse(o.stdout)).toEqual([]);
      await migrateToLatest(open());
      const applied = await open()
        .db.selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      expect(applied.map((r) => (r as { name: string }).name).sort()).toEqual(Object.keys(migrations).sort());
    });

    it('fills the jobs table\'s pages to half on PostgreSQL, leaving room for leases written beside their rows', async () => {
      const store = open();
      await migrateToLatest(store);
      if (engine === 'postgres') {
        const { rows } = await sql<{ reloptions: string[] | null }>`select reloptions from pg_class where relname = 'jobs' and relkind = 'r'`.execute(store.db);
        expect(rows.map((r) => r.reloptions)).toEqual([['fillfactor=50']]);
      } else {
        // SQLite has no such setting; its jobs table is there all the same.
        expect(await store.db.selectFrom('jobs').select('id').execute()).toEqual([]);
      }
    });

    it('keeps one server secret for every process', async () => {
      const a = await loadOrCreateSecret(open().db, 'k');
      const b = await loadOrCreateSecret(open().db, 'k');
      expect(a.equals(b)).toBe(true);
      expect(a.length).toBe(32);
    });
  });
}
