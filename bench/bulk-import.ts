/**
 * `npm run bench -- bulk-import [--engine sqlite|postgres|both] [--rows 100000]`
 *
 * Starts the real server on each engine (an empty database each), streams a generated CSV of
 * `rows` customers to POST /customers/bulk/csv (the file is generated as it is sent, never held
 * whole by the bench either), and polls GET /customers/bulk/jobs/{jobId} until the import ends.
 * Prints the upload time, the import's rows per second (from the start of the upload to its
 * completion), and the server process's resident memory before the upload (VmRSS) and at its peak
 * (VmHWM), with PostgreSQL's figures over SQLite's.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ENGINE_LABEL, emptyDatabase, parseEngines, startServer, type Engine } from './engines.js';
import { engineTable } from './report.js';

const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email\r\n';
const BOUNDARY = 'bench-bulk-import-boundary';

/** The multipart body, CSV rows generated as the request reads them. */
function multipartCsv(rows: number): Readable {
  async function* parts() {
    yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n${HEADER}`);
    const chunk: string[] = [];
    for (let i = 1; i <= rows; i++) {
      chunk.push(`bench${i}@uma.example.com,bench-${i},INDIVIDUAL,"Bench, Person ${i}",1990-01-15,${i} Main St,Austin,TX,78701,US,bench${i}@example.com\r\n`);
      if (chunk.length === 1000 || i === rows) yield Buffer.from(chunk.splice(0).join(''));
    }
    yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  }
  return Readable.from(parts());
}

/** A memory figure of the process from /proc/<pid>/status in MiB (Linux), or NaN where /proc is not there. */
function statusMiB(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? NaN : Number(kb) / 1024;
  } catch {
    return NaN;
  }
}

interface Result {
  uploadMs: number;
  totalMs: number;
  rowsPerSecond: number;
  successful: number;
  peakRssMiB: number;
  /** The server's resident set size once started, before the upload: what the import adds is the peak over this. */
  startRssMiB: number;
}

async function runOne(engine: Engine, rows: number): Promise<Result> {
  const db = await emptyDatabase(engine, 'bulk_import');
  const server = await startServer(db, { SERVICE_ENV: 'sandbox', WORKER_ENABLED: '1', BULK_IMPORT_MAX_BYTES: String(1024 * 1024 * 1024) });
  try {
    if (!server.auth) throw new Error('the server printed no credentials: its database was not empty');
    const startRssMiB = statusMiB(server.child.pid, 'VmRSS');
    const started = performance.now();
    const res = await fetch(`${server.baseUrl}/customers/bulk/csv`, {
      method: 'POST',
      headers: { authorization: server.auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body: Readable.toWeb(multipartCsv(rows)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const uploaded = performance.now();
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    const { jobId } = (await res.json()) as { jobId: string };
    for (;;) {
      const job = (await (await fetch(`${server.baseUrl}/customers/bulk/jobs/${jobId}`, { headers: { authorization: server.auth } })).json()) as { status: string; progress: { successful: number } };
      if (job.status === 'COMPLETED' || job.status === 'FAILED') {
        const totalMs = performance.now() - started;
        return { uploadMs: uploaded - started, totalMs, rowsPerSecond: rows / (totalMs / 1000), successful: job.progress.successful, peakRssMiB: statusMiB(server.child.pid, 'VmHWM'), startRssMiB };
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await server.stop();
    await db.drop();
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { engine: { type: 'string', default: 'both' }, rows: { type: 'string', default: '100000' } } });
  const engines = parseEngines(values.engine);
  const rows = Number(values.rows);
  const results: Partial<Record<Engine, Result>> = {};
  for (const engine of engines) {
    process.stderr.write(`${ENGINE_LABEL[engine]}: importing ${rows} rows\n`);
    results[engine] = await runOne(engine, rows);
  }
  const of = (f: (r: Result) => number, digits = 0) => Object.fromEntries(engines.map((e) => [e, f(results[e]!).toFixed(digits)]));
  const num = (f: (r: Result) => number) => Object.fromEntries(engines.map((e) => [e, f(results[e]!)]));
  process.stdout.write(`\nBulk import of ${rows} CSV rows (one upload, the worker in the server process)\n\n`);
  process.stdout.write(
    engineTable(engines, [
      { label: 'customers created', values: of((r) => r.successful) },
      { label: 'upload (s)', values: of((r) => r.uploadMs / 1000, 1), compare: num((r) => r.uploadMs) },
      { label: 'upload to completion (s)', values: of((r) => r.totalMs / 1000, 1), compare: num((r) => r.totalMs) },
      { label: 'rows/s', values: of((r) => r.rowsPerSecond), compare: num((r) => r.rowsPerSecond) },
      { label: 'server RSS before upload (MiB)', values: of((r) => r.startRssMiB) },
      { label: 'server peak RSS (MiB)', values: of((r) => r.peakRssMiB), compare: num((r) => r.peakRssMiB) },
    ]),
  );
}
