import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export type EngineName = 'sqlite' | 'postgres';
export const ENGINES: EngineName[] = ['sqlite', 'postgres'];

/** The PostgreSQL server tests use; each test file creates and drops its own database on it. */
export const TEST_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let pgAvailable: Promise<boolean> | undefined;

/** Whether PostgreSQL answers. In CI (CI=true) a missing server is an error, never a silent skip. */
export function postgresAvailable(): Promise<boolean> {
  pgAvailable ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.end();
      return true;
    } catch (err) {
      if (process.env.CI === 'true') throw new Error(`PostgreSQL is required in CI but ${TEST_PG_URL} did not answer: ${String(err)}`);
      process.stderr.write(`\n[tests] PostgreSQL at ${TEST_PG_URL} is not reachable; PostgreSQL variants are skipped.\n`);
      return false;
    }
  })();
  return pgAvailable;
}

export interface TestDatabase {
  engine: EngineName;
  /** Environment for a process using this database (DATA_DIR and, on PostgreSQL, DATABASE_URL). */
  env: Record<string, string>;
  databaseUrl: string | undefined;
  dataDir: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of the given engine, private to the caller. */
export async function createTestDatabase(engine: EngineName): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), `payments-test-${engine}-`));
  if (engine === 'sqlite') {
    return {
      engine,
      env: { DATA_DIR: dataDir },
      databaseUrl: undefined,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  return {
    engine,
    env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    databaseUrl,
    dataDir,
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      // Pools report closed before their sockets are; wait for them rather than kill them mid-close.
      for (let i = 0; i < 50; i++) {
        const { rows } = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
