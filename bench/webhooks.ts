/**
 * `npm run bench -- webhooks [--rate 500] [--duration 20] [--steps 500,750,1000,1500,2000] [--step-duration 10] [--no-steps]`
 *
 * Starts the real server (SQLite in a temporary directory; PostgreSQL when DATABASE_URL is set) and
 * a local receiver that verifies every delivery with standardwebhooks. Paces card authorization
 * simulations at a fixed rate and measures, per simulation, the time from its 202 to its verified
 * webhook (matched by issuerTransactionToken). Then steps the rate up to find the highest rate at
 * which every webhook still arrives within 1 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '../src/cli/server-process.js';
import { WebhookReceiver } from '../src/cli/webhook-receiver.js';
import { percentile } from './stats.js';

const MAX_IN_FLIGHT = 512;
const DEADLINE_MS = 1000;

interface Server {
  baseUrl: string;
  auth: string;
  stop(): Promise<void>;
}

async function startServer(): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-bench-webhooks-'));
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const server = await startServerProcess({ DATA_DIR: dataDir, SERVICE_ENV: 'sandbox', WORKER_ENABLED: '1' }, { nodeArgs });
  if (!server.auth) {
    await server.stop();
    throw new Error('DATABASE_URL must name an empty database: the bench uses the credentials the server prints on its first start');
  }
  return {
    baseUrl: server.baseUrl,
    auth: server.auth,
    stop: async () => {
      await server.stop();
      if (process.env.BENCH_KEEP_DATA) process.stderr.write(`kept ${dataDir}\n`);
      else rmSync(dataDir, { recursive: true, force: true });
    },
  };
}


interface PhaseResult {
  targetRate: number;
  seconds: number;
  accepted: number;
  refused: number;
  achievedRate: number;
  delivered: number;
  lost: number;
  p50: number;
  p99: number;
  max: number;
  withinDeadline: number;
}

class Bench {
  /** issuerTransactionToken -> time of its 202 / of its verified webhook (performance.now()). */
  private accepted = new Map<string, number>();
  private arrived = new Map<string, number>();
  private unverified = 0;
  readonly receiver: WebhookReceiver;

  constructor(private readonly server: Server, private readonly cards: string[]) {
    this.receiver = new WebhookReceiver({
      onDelivery: (d) => {
        if (!d.verified) {
          this.unverified += 1;
          return;
        }
        const token = (d.payload?.operation as { issuerTransactionToken?: string } | undefined)?.issuerTransactionToken;
        if (token && !this.arrived.has(token)) this.arrived.set(token, d.receivedAtHr);
      },
    });
    // Keep the receiver's own cost out of the measurement: it stores nothing.
    this.receiver.deliveries.push = () => 0;
  }

  async phase(rate: number, seconds: number): Promise<PhaseResult> {
    this.accepted.clear();
    this.arrived.clear();
    let sent = 0;
    let refused = 0;
    let inFlight = 0;
    const total = Math.round(rate * seconds);
    const started = performance.now();
    const body = JSON.stringify({ amount: 1250, merchant: { descriptor: 'BENCH COFFEE', country: 'US' } });
    await new Promise<void>((resolve) => {
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
        while (sent < due && inFlight < MAX_IN_FLIGHT) {
          const card = this.cards[sent % this.cards.length]!;
          sent += 1;
          inFlight += 1;
          fetch(`${this.server.baseUrl}/sandbox/cards/${card}/simulate/authorization`, {
            method: 'POST',
            headers: { authorization: this.server.auth, 'content-type': 'application/json' },
            body,
          })
            .then(async (res) => {
              const at = performance.now();
              const json = (await res.json()) as { issuerTransactionToken?: string };
              if (res.status === 202 && json.issuerTransactionToken) this.accepted.set(json.issuerTransactionToken, at);
              else refused += 1;
            })
            .catch(() => (refused += 1))
            .finally(() => (inFlight -= 1));
        }
        if (sent >= total) resolve();
        else setTimeout(tick, 1);
      };
      tick();
    });
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    const elapsed = (performance.now() - started) / 1000;
    // Wait for stragglers: everything accepted should arrive; give it 30 s before calling it lost.
    const waitUntil = performance.now() + 30_000;
    while (performance.now() < waitUntil && [...this.accepted.keys()].some((t) => !this.arrived.has(t))) await new Promise((r) => setTimeout(r, 20));
    const latencies: number[] = [];
    for (const [token, at] of this.accepted) {
      const got = this.arrived.get(token);
      if (got !== undefined) latencies.push(Math.max(0, got - at));
    }
    latencies.sort((a, b) => a - b);
    return {
      targetRate: rate,
      seconds,
      accepted: this.accepted.size,
      refused,
      achievedRate: this.accepted.size / elapsed,
      delivered: latencies.length,
      lost: this.accepted.size - latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? NaN,
      withinDeadline: latencies.filter((l) => l <= DEADLINE_MS).length,
    };
  }

  get unverifiedCount(): number {
    return this.unverified;
  }
}

async function api(server: Server, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: server.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : `${ms.toFixed(1)} ms`);

function printRow(r: PhaseResult): void {
  process.stdout.write(
    `  ${String(r.targetRate).padStart(5)}/s  achieved ${r.achievedRate.toFixed(0).padStart(5)}/s  accepted ${String(r.accepted).padStart(6)}  refused ${String(r.refused).padStart(4)}  ` +
      `lost ${String(r.lost).padStart(4)}  p50 ${fmt(r.p50).padStart(9)}  p99 ${fmt(r.p99).padStart(9)}  max ${fmt(r.max).padStart(9)}  ` +
      `within 1 s ${((100 * r.withinDeadline) / Math.max(1, r.accepted)).toFixed(2)}%\n`,
  );
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      rate: { type: 'string', default: '500' },
      duration: { type: 'string', default: '20' },
      steps: { type: 'string', default: '500,750,1000,1500,2000,3000' },
      'step-duration': { type: 'string', default: '10' },
      'no-steps': { type: 'boolean', default: false },
      cards: { type: 'string', default: '16' },
    },
  });
  const server = await startServer();
  let bench: Bench | undefined;
  try {
    const customer = await api(server, 'POST', '/customers', {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Bench Co', incorporatedOn: '2020-01-01', taxId: '99-9999999' },
      address: { line1: '1 Bench St', postalCode: '94105', country: 'US' },
    });
    const cards: string[] = [];
    for (let i = 0; i < Number(values.cards); i++) cards.push((await api(server, 'POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL' })).id);
    bench = new Bench(server, cards);
    await bench.receiver.start();
    const config = await api(server, 'PATCH', '/config', { webhookEndpoint: bench.receiver.url });
    bench.receiver.secrets = [config.webhookSecret];

    process.stdout.write(
      `Webhooks bench: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}, ${cards.length} cards, JOB_CONCURRENCY=${process.env.JOB_CONCURRENCY ?? 'default'}; ` +
        'time from the simulate 202 to the verified webhook\n\n',
    );
    await bench.phase(100, 2); // warm-up: connections, statement caches, JIT
    process.stdout.write(`Fixed rate (${values.rate}/s for ${values.duration} s):\n`);
    const main = await bench.phase(Number(values.rate), Number(values.duration));
    printRow(main);

    let best: PhaseResult | undefined;
    if (!values['no-steps']) {
      process.stdout.write(`\nStepping up (${values['step-duration']} s each) until a webhook takes longer than 1 s or is lost:\n`);
      for (const rate of values.steps.split(',').map(Number)) {
        const r = await bench.phase(rate, Number(values['step-duration']));
        printRow(r);
        const sustained = r.lost === 0 && r.refused === 0 && r.withinDeadline === r.accepted && r.achievedRate >= 0.95 * rate;
        if (!sustained) break;
        best = r;
      }
    }
    process.stdout.write('\nSummary\n');
    process.stdout.write(`  at ${values.rate}/s: p50 ${fmt(main.p50)}, p99 ${fmt(main.p99)}, lost ${main.lost} of ${main.accepted}\n`);
    if (!values['no-steps']) process.stdout.write(`  highest sustained rate with every webhook within 1 s: ${best ? `${best.targetRate}/s (p99 ${fmt(best.p99)})` : 'none of the steps'}\n`);
    process.stdout.write(`  deliveries failing verification: ${bench.unverifiedCount}\n`);
    if (main.lost > 0 || bench.unverifiedCount > 0) process.exitCode = 1;
  } finally {
    await bench?.receiver.stop();
    await server.stop();
  }
}
