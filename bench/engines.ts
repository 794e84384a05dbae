import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startServerProcess, type ServerProcess, type StartOptions } from '../src/cli/server-process.js';

/**
 * The storage engines a scenario measures (`--engine sqlite|postgres|both`), where each keeps the
 * bench's data, and the server started on it. PostgreSQL databases are created on the server named
 * by BENCH_DATABASE_URL (an administrative connection: any database of it will do).
 */
export type Engine = 'sqlite' | 'postgres';

export const ENGINE_LABEL: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH_DATA = join(ROOT, '.bench-data');
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The bench cannot run as asked (a bad --engine, PostgreSQL not answering): told in one line, without a stack. */
export class BenchSetupError extends Error {}

/** `--engine` as the engines to measure, SQLite first. */
export function parseEngines(value: string): Engine[] {
  if (value === 'both') return ['sqlite', 'postgres'];
  if (value === 'sqlite' || value === 'postgres') return [value];
  throw new BenchSetupError(`--engine must be sqlite, postgres or both, not ${JSON.stringify(value)}`);
}

/**
 * `--processes` as each engine's number of server processes: one number for both (`2`), or one per
 * engine (`sqlite=1,postgres=2`: each as it scales best; SQLite has one writer however many
 * processes serve it).
 */
export function parseProcesses(value: string): Record<Engine, number> {
  const count = (v: string | undefined) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new BenchSetupError(`--processes must be a whole number of processes, or sqlite=N,postgres=M; not ${JSON.stringify(value)}`);
    return n;
  };
  if (!value.includes('=')) return { sqlite: count(value), postgres: count(value) };
  const given = new Map(value.split(',').map((part) => part.split('=') as [string, string]));
  if ([...given.keys()].some((k) => k !== 'sqlite' && k !== 'postgres')) throw new BenchSetupError(`--processes names sqlite and postgres only, not ${JSON.stringify(value)}`);
  return { sqlite: count(given.get('sqlite') ?? '1'), postgres: count(given.get('postgres') ?? '1') };
}

/** How many server processes each engine has, for a table's header. */
export function describeProcesses(engines: Engine[], processes: Record<Engine, number>): string {
  return engines.map((e) => `${ENGINE_LABEL[e]} ${processes[e]}`).join(', ');
}

/**
 * The order of `items` in round `round`: as given in even rounds, reversed in odd ones (ABBA), so
 * over an even number of rounds each one goes first as often and drift hits them alike.
 */
export function roundOrder<T>(items: T[], round: number): T[] {
  return round % 2 === 0 ? items : [...items].reverse();
}

/** The order `roundOrder` gives over `rounds`, for a table's header: e.g. "SQLite, PostgreSQL, PostgreSQL, SQLite". */
export function describeRounds(engines: Engine[], rounds: number): string {
  return Array.from({ length: rounds }, (_, r) => roundOrder(engines, r).map((e) => ENGINE_LABEL[e])).flat().join(', ');
}

/** One engine's database for one data set. */
export interface BenchDatabase {
  engine: Engine;
  /** For a server or CLI process: DATA_DIR and, on PostgreSQL, DATABASE_URL (unset on SQLite, whatever the bench's own environment says). */
  env: Record<string, string | undefined>;
  /** The same, for opening the store in the bench process. */
  store: { dataDir: string; databaseUrl: string | undefined };
  drop(): Promise<void>;
}

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** An empty database for one run: a temporary directory, or on PostgreSQL `bench_<name>` made anew. */
export async function emptyDatabase(engine: Engine, name: string): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), `payments-bench-${name}-`));
  const removeDir = async () => rmSync(dataDir, { recursive: true, force: true });
  if (engine === 'sqlite') return { engine, env: { DATA_DIR: dataDir, DATABASE_URL: undefined }, store: { dataDir, databaseUrl: undefined }, drop: removeDir };
  const database = `bench_${name}`;
  await recreatePostgresDatabase(database);
  const databaseUrl = postgresUrl(database);
  return {
    engine,
    env: { DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
    store: { dataDir, databaseUrl },
    drop: async () => {
      await admin((c) => c.query(`drop database if exists ${database} with (force)`));
      await removeDir();
    },
  };
}

/**
 * A data set seeded once by `npm run cli -- seed` and kept across runs (`fresh` seeds it again):
 * on SQLite under .bench-data/<name>/, on PostgreSQL as database `bench_<name>`, whose credentials
 * are kept under .bench-data/<name>-postgres/ with the database's oid, so a database dropped or
 * seeded again by another checkout is not taken for this one.
 */
export async function seededDatabase(engine: Engine, name: string, seedArgs: string[], fresh: boolean): Promise<{ db: BenchDatabase; credentials: Credentials }> {
  const dir = join(BENCH_DATA, engine === 'sqlite' ? name : `${name}-postgres`);
  const file = join(dir, 'credentials.json');
  const database = `bench_${name.replace(/-/g, '_')}`;
  const databaseUrl = engine === 'postgres' ? postgresUrl(database) : undefined;
  const db: BenchDatabase = {
    engine,
    env: { DATA_DIR: dir, DATABASE_URL: databaseUrl },
    store: { dataDir: dir, databaseUrl },
    drop: async () => {},
  };
  const oid = async () => (engine === 'postgres' ? await admin(async (c) => String((await c.query('select oid from pg_database where datname = $1', [database])).rows[0]?.oid ?? '')) : '');
  if (!fresh && existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Credentials & { databaseOid: string };
    if (kept.databaseOid === (await oid())) return { db, credentials: kept };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (engine === 'postgres') await recreatePostgresDatabase(database);
  process.stderr.write(`Seeding ${ENGINE_LABEL[engine]} data set ${name} (${seedArgs.join(' ')})\n`);
  const seed = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'seed', ...seedArgs, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...db.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  seed.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(seed, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`seed exited with ${code}`);
  const credentials = JSON.parse(out) as Credentials & { elapsedMs: number };
  process.stderr.write(`Seeded in ${(credentials.elapsedMs / 1000).toFixed(1)} s\n`);
  writeFileSync(file, JSON.stringify({ clientId: credentials.clientId, clientSecret: credentials.clientSecret, databaseOid: await oid() }));
  return { db, credentials };
}

/** The real server as its own process on this database; `env` adds settings (WORKER_ENABLED, HTTP_PROCESSES). */
export function startServer(db: BenchDatabase, env: Record<string, string> = {}, opts: StartOptions = {}): Promise<ServerProcess> {
  return startServerProcess({ ...db.env, ...env }, opts);
}

/** The Authorization header for these credentials. */
export function basicAuth({ clientId, clientSecret }: Credentials): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
}

function postgresUrl(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function recreatePostgresDatabase(database: string): Promise<void> {
  await admin(async (c) => {
    await c.query(`drop database if exists ${database} with (force)`);
    await c.query(`create database ${database}`);
  });
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await client.connect();
  } catch (err) {
    throw new BenchSetupError(`PostgreSQL at BENCH_DATABASE_URL (${ADMIN_URL}) did not answer: ${String(err)}; use --engine sqlite to measure SQLite alone`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
