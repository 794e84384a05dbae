import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { ServerProcess } from '../src/cli/server-process.js';
import { ENGINE_LABEL, parseEngines, roundOrder, startServer, type Engine } from './engines.js';
import { API, customerIds, ownersDataSet, type DataSet } from './owners-data-set.js';
import { PAGE_LATENCY_PLAN, comparePageLatencyByTableSize } from './page-latency-by-table-size.js';
import { alignedTable, ratio } from './report.js';
import { median, percentile } from './stats.js';

/**
 * `npm run bench -- list-owners [--engine sqlite|postgres|both] [--owners 1000,1000000]
 * [--customers 1000] [--duration 10] [--connections 64] [--limit 20] [--processes 1,2] [--fresh]`:
 * for each data set, seeds (or reuses) it on each engine, starts the real server on each and a bare
 * constant-body Fastify server, loads them in turn with autocannon (each request for a random
 * customer) and prints throughput, latency, each engine's ratio to the floor and PostgreSQL/SQLite.
 * The servers keep the pages they answered (OWNER_PAGE_CACHE_BYTES); run with
 * OWNER_PAGE_CACHE_BYTES=0 to measure pages read anew every time.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The servers inherit this environment: OWNER_PAGE_CACHE_BYTES=0 measures every page read anew. */
const keptPages = () =>
  process.env.OWNER_PAGE_CACHE_BYTES === '0' ? 'no kept pages (OWNER_PAGE_CACHE_BYTES=0): every page read anew' : 'kept pages on (a page asked again costs a token and version check)';
const ROUNDS = 5;

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Something loaded in the alternating slices: the floor, or the list on one engine. */
interface Loaded {
  engine: Engine | 'floor';
  base: string;
  auth: string;
  paths: string[];
  slices: Measured[];
  /** Every response's latency (ms) over the slices; kept for the lists only. */
  latencies?: number[];
}

function floorProcess(bodyFile: string, processes: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'bench/constant-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, BODY_FILE: bodyFile, PROCESSES: String(processes) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Waits for a line matching `pattern` on stdout and returns its first group. */
function waitFor(proc: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    proc.on('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${out}`)));
  });
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.on('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

/** Loads `paths` for `duration` s; with `samples`, every response's latency (ms) is pushed to it. */
function load(base: string, auth: string, paths: string[], connections: number, duration: number, samples?: number[]): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections,
        duration,
        headers: { authorization: auth },
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[Math.floor(Math.random() * paths.length)]! }) }],
      },
      (err, result) => {
        if (err) return reject(err);
        resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors });
      },
    );
    if (samples) instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => samples.push(ms));
  });
}

/** One request at a time on one kept-alive connection: a page read end to end, without queueing. */
async function serialLatency(base: string, auth: string, paths: string[], count: number): Promise<{ p50: number; p99: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(base);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const path = paths[Math.floor(Math.random() * paths.length)]!;
    const started = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      const req = request({ hostname, port, path, agent, headers: { authorization: auth } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  agent.destroy();
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(count * 0.5)]!, p99: samples[Math.floor(count * 0.99)]! };
}

const meanRps = (ms: Measured[]) => ms.reduce((n, m) => n + m.rps, 0) / ms.length;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      owners: { type: 'string', default: '1000,1000000' },
      customers: { type: 'string', default: '1000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '64' },
      limit: { type: 'string', default: '20' },
      processes: { type: 'string', default: '1,2' },
      fresh: { type: 'boolean', default: false },
    },
  });
  const engines = parseEngines(values.engine);
  const slice = Math.max(2, Math.round(Number(values.duration) / ROUNDS));
  const connections = Number(values.connections);
  const limit = Number(values.limit);
  const rows: string[][] = [];
  const sets = new Map<Engine, DataSet[]>(engines.map((e) => [e, []]));
  for (const owners of values.owners.split(',').map(Number)) {
    const customers = Math.min(Number(values.customers), owners);
    const perCustomer = Math.max(1, Math.round(owners / customers));
    const data = new Map<Engine, DataSet>();
    for (const engine of engines) {
      data.set(engine, await ownersDataSet(engine, customers, perCustomer, values.fresh));
      sets.get(engine)!.push(data.get(engine)!);
    }
    for (const processes of values.processes.split(',').map(Number)) {
      const servers: ServerProcess[] = [];
      let floorProc: ChildProcess | undefined;
      try {
        const lists: Loaded[] = [];
        const bodies = new Map<Engine, string>();
        for (const engine of engines) {
          const { db, auth } = data.get(engine)!;
          const server = await startServer(db, { WORKER_ENABLED: '0', HTTP_PROCESSES: String(processes) });
          servers.push(server);
          const base = new URL(server.baseUrl).origin;
          const paths = (await customerIds(base, auth)).map((id) => `${API}/beneficial-owners?customerId=${id}&limit=${limit}`);
          const sample = await fetch(`${base}${paths[0]}`, { headers: { authorization: auth } });
          bodies.set(engine, await sample.text());
          if (sample.status !== 200) throw new Error(`${ENGINE_LABEL[engine]} list answered ${sample.status}: ${bodies.get(engine)}`);
          lists.push({ engine, base, auth, paths, slices: [], latencies: [] });
        }
        // The floor: a bare Fastify route answering the same bytes from as many processes, in the same run.
        const floorBodyFile = join(data.get(engines[0]!)!.db.store.dataDir, 'floor-body.json');
        writeFileSync(floorBodyFile, bodies.get(engines[0]!)!);
        floorProc = floorProcess(floorBodyFile, processes);
        const floorBase = `http://127.0.0.1:${await waitFor(floorProc, /Listening on port (\d+)/, 'floor server')}`;
        const floor: Loaded = { engine: 'floor', base: floorBase, auth: lists[0]!.auth, paths: lists[0]!.paths.slice(0, 1000), slices: [] };
        const loaded = [floor, ...lists];
        process.stderr.write(`${owners.toLocaleString('en')} owners, ${processes} process(es): floor and list in alternating ${slice}s slices, ${ROUNDS} each\n`);
        for (const l of loaded) await load(l.base, l.auth, l.paths, connections, 2);
        // Alternating slices, the order reversed every round: a shared machine's drift hits the floor and every engine alike.
        for (let r = 0; r < ROUNDS; r++) {
          for (const l of roundOrder(loaded, r)) l.slices.push(await load(l.base, l.auth, l.paths, connections, slice, l.latencies));
        }
        const floorRps = meanRps(floor.slices);
        const figures = new Map<Engine, { rps: number; p50: number; p99: number; serialP50: number }>();
        for (const l of lists) {
          const engine = l.engine as Engine;
          const latencies = l.latencies!.sort((a, b) => a - b);
          // One connection, no queueing: the latency of a single page read end to end.
          const serial = await serialLatency(l.base, l.auth, l.paths, 3000);
          const bad = l.slices.reduce((n, m) => n + m.non2xx + m.errors, 0);
          if (bad > 0) process.stderr.write(`warning: ${ENGINE_LABEL[engine]} list had ${bad} non-2xx answers or errors\n`);
          figures.set(engine, { rps: meanRps(l.slices), p50: percentile(latencies, 50), p99: percentile(latencies, 99), serialP50: serial.p50 });
          rows.push([
            owners.toLocaleString('en'),
            `${l.paths.length}x${perCustomer}`,
            String(processes),
            ENGINE_LABEL[engine],
            String(Buffer.byteLength(bodies.get(engine)!)),
            meanRps(l.slices).toFixed(0),
            percentile(latencies, 50).toFixed(1),
            `${percentile(latencies, 99).toFixed(1)} (${Math.min(...l.slices.map((m) => m.p99))}-${Math.max(...l.slices.map((m) => m.p99))})`,
            serial.p50.toFixed(3),
            floorRps.toFixed(0),
            `${median(floor.slices.map((f) => f.p99))}`,
            (meanRps(l.slices) / floorRps).toFixed(2),
          ]);
        }
        const [sqlite, postgres] = [figures.get('sqlite'), figures.get('postgres')];
        if (sqlite && postgres) {
          rows.push(['', '', '', 'PG/SQLite', '', ratio(postgres.rps, sqlite.rps), ratio(postgres.p50, sqlite.p50), ratio(postgres.p99, sqlite.p99), ratio(postgres.serialP50, sqlite.serialP50), '', '', '']);
        }
      } finally {
        if (floorProc) await stop(floorProc);
        for (const server of servers) await server.stop();
      }
    }
  }
  const order = ['floor', ...engines.map((e) => ENGINE_LABEL[e])];
  process.stdout.write(
    `\nList beneficial owners (limit ${limit}, ${connections} connections, random customer per request; ${keptPages()}; the floor (bare Fastify, as many processes, same bytes) and ` +
      `each engine's list in ${ROUNDS} rounds of ${slice}s slices, one at a time, in the order ${order.join(', ')} then reversed, alternately; ` +
      'p50 and p99 over every list response; ratio = list req/s over floor req/s; PG/SQLite rows divide PostgreSQL\'s figure by SQLite\'s from the same slices)\n',
  );
  process.stdout.write(alignedTable(['owners', 'customers', 'procs', 'engine', 'page bytes', 'list req/s', 'p50 ms', 'p99 ms (slices)', '1-conn p50 ms', 'floor req/s', 'floor p99', 'ratio'], rows));
  if (values.owners.split(',').length >= 2) {
    // Latency against table size compares equal pages: the smallest set again, as customers with
    // more owners than a page (1,000 owners: 40 customers x 25), against the largest. So every page
    // at both sizes is full and has more after it (a next cursor to sign), and only the table's
    // size differs; with exactly one page per customer the small set skipped the cursor (~17 us of 150).
    const perCustomer = Math.ceil(limit * 1.25);
    const pairsOfSets: [DataSet, DataSet][] = [];
    for (const engine of engines) {
      const small = sets.get(engine)![0]!;
      const customers = Math.max(1, Math.floor(small.owners / perCustomer));
      pairsOfSets.push([await ownersDataSet(engine, customers, perCustomer, values.fresh), sets.get(engine)!.at(-1)!]);
    }
    const { rounds, pairs } = PAGE_LATENCY_PLAN;
    process.stdout.write(
      `\nPage latency against table size (full pages with a next cursor at both sizes; one engine at a time, one connection to each size, requests alternating between the two servers, ${rounds} rounds of ${pairs.toLocaleString('en')} each)\n`,
    );
    for (const [small, large] of pairsOfSets) await comparePageLatencyByTableSize(small, large, limit);
  }
}
