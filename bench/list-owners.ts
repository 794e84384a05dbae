import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startServerProcess } from '../src/cli/server-process.js';
import { median, percentile } from './stats.js';

/**
 * `npm run bench -- list-owners [--owners 1000,1000000] [--customers 1000] [--duration 10]
 * [--connections 64] [--limit 20] [--processes 1,2] [--fresh]`: for each data set, seeds (or reuses) it under
 * .bench-data/, starts the real server and a bare constant-body Fastify server, loads both with
 * autocannon (each request for a random customer) and prints throughput, latency and the ratio.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const API = '/2025-10-13';

interface Seeded {
  clientId: string;
  clientSecret: string;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function child(args: string[], env: Record<string, string>, stdio: 'pipe' | 'inherit-err' = 'pipe'): ChildProcess {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', stdio === 'pipe' ? 'pipe' : 'inherit'],
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

async function seed(dir: string, customers: number, perCustomer: number, fresh: boolean): Promise<Seeded> {
  const file = join(dir, 'credentials.json');
  if (!fresh && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Seeded;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`Seeding ${customers} customers x ${perCustomer} owners into ${dir}\n`);
  const proc = child(['src/cli/main.ts', 'seed', '--customers', String(customers), '--owners-per-customer', String(perCustomer), '--json'], { DATA_DIR: dir }, 'inherit-err');
  const json = await waitFor(proc, /^(\{.*\})$/m, 'seed');
  await new Promise((r) => proc.on('exit', r));
  writeFileSync(file, json);
  return JSON.parse(json) as Seeded;
}

async function customerIds(base: string, auth: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await fetch(`${base}${API}/customers?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: auth } });
    if (!res.ok) throw new Error(`GET /customers answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { data: { id: string }[]; nextCursor?: string };
    ids.push(...page.data.map((c) => c.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
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

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.on('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      owners: { type: 'string', default: '1000,1000000' },
      customers: { type: 'string', default: '1000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '64' },
      limit: { type: 'string', default: '20' },
      processes: { type: 'string', default: '1,2' },
      fresh: { type: 'boolean', default: false },
    },
  });
  const duration = Number(values.duration);
  const rounds = 5;
  const slice = Math.max(2, Math.round(duration / rounds));
  const connections = Number(values.connections);
  const limit = Number(values.limit);
  const rows: string[][] = [];
  const sets: DataSet[] = [];
  for (const owners of values.owners.split(',').map(Number)) {
    const customers = Math.min(Number(values.customers), owners);
    const perCustomer = Math.max(1, Math.round(owners / customers));
    const dir = join(ROOT, '.bench-data', `owners-${customers}x${perCustomer}`);
    const creds = await seed(dir, customers, perCustomer, values.fresh);
    const auth = `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}`;
    sets.push({ owners, dir, auth });
    const floorBodyFile = join(dir, 'floor-body.json');
    for (const processes of values.processes.split(',').map(Number)) {
      const server = await startServerProcess({ DATA_DIR: dir, DATABASE_URL: undefined, WORKER_ENABLED: '0', HTTP_PROCESSES: String(processes) });
      let floorProc: ChildProcess | undefined;
      try {
        const base = new URL(server.baseUrl).origin;
        const ids = await customerIds(base, auth);
        const paths = ids.map((id) => `${API}/beneficial-owners?customerId=${id}&limit=${limit}`);
        const sample = await fetch(`${base}${paths[0]}`, { headers: { authorization: auth } });
        const body = await sample.text();
        if (sample.status !== 200) throw new Error(`list answered ${sample.status}: ${body}`);
        // The floor: a bare Fastify route answering the same bytes from as many processes, in the same run.
        writeFileSync(floorBodyFile, body);
        floorProc = child(['bench/constant-server.ts'], { BODY_FILE: floorBodyFile, PROCESSES: String(processes) });
        const floorBase = `http://127.0.0.1:${await waitFor(floorProc, /Listening on port (\d+)/, 'floor server')}`;
        const floorPaths = paths.slice(0, 1000);
        process.stderr.write(`${owners.toLocaleString('en')} owners, ${processes} process(es): list and floor in alternating ${slice}s slices, ${rounds} each\n`);
        await load(floorBase, auth, floorPaths, connections, 2);
        await load(base, auth, paths, connections, 2);
        // Alternating slices: a shared machine's drift hits the list and its floor alike.
        const lists: Measured[] = [];
        const floors: Measured[] = [];
        const latencies: number[] = [];
        for (let r = 0; r < rounds; r++) {
          floors.push(await load(floorBase, auth, floorPaths, connections, slice));
          lists.push(await load(base, auth, paths, connections, slice, latencies));
        }
        latencies.sort((a, b) => a - b);
        // One connection, no queueing: the latency of a single page read end to end.
        const serial = await serialLatency(base, auth, paths, 3000);
        const bad = lists.reduce((n, l) => n + l.non2xx + l.errors, 0);
        if (bad > 0) process.stderr.write(`warning: list had ${bad} non-2xx answers or errors\n`);
        const mean = (ms: Measured[]) => ms.reduce((n, m) => n + m.rps, 0) / ms.length;
        rows.push([
          owners.toLocaleString('en'),
          `${ids.length}x${perCustomer}`,
          String(processes),
          String(Buffer.byteLength(body)),
          mean(lists).toFixed(0),
          percentile(latencies, 50).toFixed(1),
          `${percentile(latencies, 99).toFixed(1)} (${Math.min(...lists.map((l) => l.p99))}-${Math.max(...lists.map((l) => l.p99))})`,
          serial.p50.toFixed(3),
          mean(floors).toFixed(0),
          `${median(floors.map((f) => f.p99))}`,
          (mean(lists) / mean(floors)).toFixed(2),
        ]);
      } finally {
        if (floorProc) await stop(floorProc);
        await server.stop();
      }
    }
  }
  const head = ['owners', 'customers', 'procs', 'page bytes', 'list req/s', 'p50 ms', 'p99 ms (slices)', '1-conn p50 ms', 'floor req/s', 'floor p99', 'ratio'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padStart(widths[i]!)).join('  ');
  process.stdout.write(
    `\nList beneficial owners (limit ${limit}, ${connections} connections, random customer per request; list and floor (bare Fastify, as many processes, same bytes) in ${rounds} alternating ${slice}s slices each; p50 and p99 over every list response)\n`,
  );
  process.stdout.write(`${line(head)}\n${rows.map(line).join('\n')}\n`);
  if (sets.length >= 2) {
    // Latency against table size compares equal pages: the smallest set again, as customers with
    // more owners than a page (1,000 owners: 40 customers x 25), against the largest. So every page
    // at both sizes is full and has more after it (a next cursor to sign), and only the table's
    // size differs; with exactly one page per customer the small set skipped the cursor (~17 us of 150).
    const small = sets[0]!;
    const perCustomer = Math.ceil(limit * 1.25);
    const customers = Math.max(1, Math.floor(small.owners / perCustomer));
    const dir = join(ROOT, '.bench-data', `owners-${customers}x${perCustomer}`);
    const creds = await seed(dir, customers, perCustomer, values.fresh);
    const auth = `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}`;
    await compareTableSizes({ owners: customers * perCustomer, dir, auth }, sets[sets.length - 1]!, limit);
  }
}

interface DataSet {
  owners: number;
  dir: string;
  auth: string;
}

/**
 * Page latency against table size, with the noise of a shared machine taken out: both data sets
 * are served at once (one process each) and single requests alternate between them (ABBA, so
 * neither always goes first), on one kept-alive connection each, for the same page size; so drift
 * hits both alike. Five rounds of 1,000 pairs after a warm-up that visits every customer; the
 * ratio printed is the median of the rounds' ratios of medians, with their range.
 */
async function compareTableSizes(small: DataSet, large: DataSet, limit: number): Promise<void> {
  const servers = await Promise.all([small, large].map(async (set) => ({ set, proc: await startServerProcess({ DATA_DIR: set.dir, DATABASE_URL: undefined, WORKER_ENABLED: '0' }) })));
  try {
    const targets = await Promise.all(
      servers.map(async ({ set, proc }) => {
        const base = new URL(proc.baseUrl).origin;
        const ids = await customerIds(base, set.auth);
        const { hostname, port } = new URL(base);
        return { set, hostname, port, ids, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
      }),
    );
    const once = (t: (typeof targets)[number], pageLimit: number) =>
      new Promise<number>((resolve, reject) => {
        const path = `${API}/beneficial-owners?customerId=${t.ids[Math.floor(Math.random() * t.ids.length)]!}&limit=${pageLimit}`;
        const started = process.hrtime.bigint();
        const req = request({ hostname: t.hostname, port: t.port, path, agent: t.agent, headers: { authorization: t.set.auth } }, (res) => {
          res.resume();
          res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
        });
        req.on('error', reject);
        req.end();
      });
    const [rounds, pairs] = [5, 1000];
    process.stdout.write(
      `\nPage latency against table size (full pages with a next cursor at both sizes; one connection each, requests alternating between the two servers, ${rounds} rounds of ${pairs.toLocaleString('en')} each)\n`,
    );
    const [smallT, largeT] = targets as [(typeof targets)[number], (typeof targets)[number]];
    for (const pageLimit of [1, limit]) {
      for (let i = 0; i < 2000; i++) await Promise.resolve(once(smallT, pageLimit)).then(() => once(largeT, pageLimit));
      const ratios: number[] = [];
      const all: [number[], number[]] = [[], []];
      for (let r = 0; r < rounds; r++) {
        const round: [number[], number[]] = [[], []];
        for (let i = 0; i < pairs; i++) {
          const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
          for (const k of order) round[k].push(await once(k === 0 ? smallT : largeT, pageLimit));
        }
        ratios.push(median(round[1]) / median(round[0]));
        all[0].push(...round[0]);
        all[1].push(...round[1]);
      }
      const [a, b] = all.map(median) as [number, number];
      process.stdout.write(
        `  limit=${String(pageLimit).padEnd(3)} ${small.owners.toLocaleString('en')} owners p50 ${a.toFixed(3)} ms   ${large.owners.toLocaleString('en')} owners p50 ${b.toFixed(3)} ms   ` +
          `ratio ${median(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})\n`,
      );
    }
    for (const t of targets) t.agent.destroy();
  } finally {
    for (const { proc } of servers) await proc.stop();
  }
}
