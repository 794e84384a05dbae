/**
 * `npm run bench -- transfers [--engine sqlite|postgres|both] [--steps 100,200,300,500,750,1000] [--step-duration 10]`
 *
 * Starts the real server on each engine (an empty database each) with a local receiver that
 * verifies every delivery with standardwebhooks, and paces POST /transfer-out from one funded
 * internal account to one external account, stepping the rate up (both engines at each step, the
 * first alternating). Per transfer it measures the time from its 201 to its verified
 * OUTGOING_PAYMENT.COMPLETED webhook (matched by the transaction id), and reports the highest
 * rate at which every such webhook arrived within 1 s.
 */
import { parseArgs } from 'node:util';
import { WebhookReceiver } from '../src/cli/webhook-receiver.js';
import type { ServerProcess } from '../src/cli/server-process.js';
import { ENGINE_LABEL, emptyDatabase, parseEngines, roundOrder, startServer, type BenchDatabase, type Engine } from './engines.js';
import { engineTable } from './report.js';
import { pacedPhase } from './paced-load.js';
import { percentile } from './stats.js';

const DEADLINE_MS = 1000;
const AMOUNT = 100;

interface StepResult {
  targetRate: number;
  achievedRate: number;
  accepted: number;
  refused: number;
  lost: number;
  p50: number;
  p99: number;
  withinDeadline: number;
}

/** One engine under test: its server, the accounts transfers move between, and the receiver of its webhooks. */
class Target {
  /** transaction id -> time of its 201 / of its verified OUTGOING_PAYMENT.COMPLETED (performance.now()). */
  private accepted = new Map<string, number>();
  private arrived = new Map<string, number>();
  private unverified = 0;
  readonly receiver: WebhookReceiver;
  private source = '';
  private destination = '';

  private constructor(readonly engine: Engine, private readonly db: BenchDatabase, private readonly server: ServerProcess & { auth: string }) {
    this.receiver = new WebhookReceiver({
      onDelivery: (d) => {
        if (!d.verified) {
          this.unverified += 1;
          return;
        }
        if (d.payload?.type !== 'OUTGOING_PAYMENT.COMPLETED') return;
        const id = (d.payload.data as { id?: string } | undefined)?.id;
        if (id && !this.arrived.has(id)) this.arrived.set(id, d.receivedAtHr);
      },
    });
    // Keep the receiver's own cost out of the measurement: it stores nothing.
    this.receiver.deliveries.push = () => 0;
  }

  static async start(engine: Engine): Promise<Target> {
    const db = await emptyDatabase(engine, 'transfers');
    const server = await startServer(db, { SERVICE_ENV: 'sandbox', WORKER_ENABLED: '1' }).catch(async (err: unknown) => {
      await db.drop();
      throw err;
    });
    if (!server.auth) {
      await server.stop();
      await db.drop();
      throw new Error('the server printed no credentials: its database was not empty');
    }
    const target = new Target(engine, db, server as ServerProcess & { auth: string });
    try {
      const customer = await target.api('POST', '/customers', {
        customerType: 'BUSINESS',
        businessInfo: { legalName: 'Bench Co', incorporatedOn: '2020-01-01', taxId: '99-9999999' },
        address: { line1: '1 Bench St', postalCode: '94105', country: 'US' },
      });
      // Money moves for an APPROVED customer: a business without a 001/002/003 registration number is approved on submission.
      await target.api('POST', '/verifications', { customerId: customer.id });
      target.source = (await target.api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&type=INTERNAL_FIAT&currency=USD`)).data[0].id;
      for (let i = 0; i < 10; i++) await target.api('POST', `/sandbox/internal-accounts/${target.source}/fund`, { amount: 100_000_000_000 });
      // A number ending in 000: every transfer completes.
      const payee = await target.api('POST', '/customers/external-accounts', {
        customerId: customer.id,
        currency: 'USD',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789000', routingNumber: '021000021', bankAccountType: 'CHECKING', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Bench Co' } },
      });
      target.destination = payee.id;
      await target.receiver.start();
      target.receiver.trust(await target.api('PATCH', '/config', { webhookEndpoint: target.receiver.url }));
      return target;
    } catch (err) {
      await target.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await this.receiver.stop();
    await this.server.stop();
    await this.db.drop();
  }

  get unverifiedCount(): number {
    return this.unverified;
  }

  async step(rate: number, seconds: number): Promise<StepResult> {
    this.accepted.clear();
    this.arrived.clear();
    const body = JSON.stringify({ source: { accountId: this.source }, destination: { accountId: this.destination }, amount: AMOUNT });
    const { seconds: elapsed, refused, latencies } = await pacedPhase(
      rate,
      seconds,
      async () => {
        const res = await fetch(`${this.server.baseUrl}/transfer-out`, { method: 'POST', headers: { authorization: this.server.auth, 'content-type': 'application/json' }, body });
        const at = performance.now();
        const json = (await res.json()) as { id?: string; status?: string };
        return { key: res.status === 201 && json.status === 'PENDING' ? json.id : undefined, at };
      },
      this.arrived,
      this.accepted,
    );
    return {
      targetRate: rate,
      achievedRate: this.accepted.size / elapsed,
      accepted: this.accepted.size,
      refused,
      lost: this.accepted.size - latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      withinDeadline: latencies.filter((l) => l <= DEADLINE_MS).length,
    };
  }

  private async api(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.server.baseUrl}${path}`, {
      method,
      headers: { authorization: this.server.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}

const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : `${ms.toFixed(1)} ms`);

function printRow(engine: Engine, r: StepResult): void {
  process.stdout.write(
    `  ${ENGINE_LABEL[engine].padEnd(10)}  ${String(r.targetRate).padStart(5)}/s  achieved ${r.achievedRate.toFixed(0).padStart(5)}/s  accepted ${String(r.accepted).padStart(6)}  ` +
      `refused ${String(r.refused).padStart(4)}  lost ${String(r.lost).padStart(4)}  p50 ${fmt(r.p50).padStart(9)}  p99 ${fmt(r.p99).padStart(9)}  ` +
      `within 1 s ${((100 * r.withinDeadline) / Math.max(1, r.accepted)).toFixed(2)}%\n`,
  );
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      steps: { type: 'string', default: '100,200,300,500,750,1000' },
      'step-duration': { type: 'string', default: '10' },
    },
  });
  const engines = parseEngines(values.engine);
  const seconds = Number(values['step-duration']);
  const targets: Target[] = [];
  try {
    for (const engine of engines) targets.push(await Target.start(engine));
    process.stdout.write(`Transfers bench: ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}; time from the transfer-out 201 to the verified OUTGOING_PAYMENT.COMPLETED\n\n`);
    for (const t of targets) await t.step(20, 1); // warm-up: connections, statement caches, JIT
    process.stdout.write(`Stepping up (${seconds} s each, both engines at each step, the first alternating) until a webhook takes longer than 1 s or is lost:\n`);
    const best = new Map<Engine, StepResult>();
    let climbing = [...targets];
    for (const [i, rate] of values.steps.split(',').map(Number).entries()) {
      if (climbing.length === 0) break;
      for (const t of roundOrder([...climbing], i)) {
        const r = await t.step(rate, seconds);
        printRow(t.engine, r);
        const sustained = r.lost === 0 && r.refused === 0 && r.withinDeadline === r.accepted && r.achievedRate >= 0.95 * rate;
        if (sustained) best.set(t.engine, r);
        else climbing = climbing.filter((c) => c !== t);
      }
    }
    const at = (f: (r: StepResult) => string) => Object.fromEntries(engines.map((e) => [e, best.has(e) ? f(best.get(e)!) : '-']));
    process.stdout.write('\nSummary\n\n');
    process.stdout.write(
      engineTable(engines, [
        {
          label: 'highest rate with every webhook within 1 s',
          values: at((r) => `${r.targetRate}/s`),
          compare: Object.fromEntries(engines.map((e) => [e, best.get(e)?.targetRate ?? NaN])),
        },
        { label: '201 -> webhook p50 at that rate', values: at((r) => fmt(r.p50)), compare: Object.fromEntries(engines.map((e) => [e, best.get(e)?.p50 ?? NaN])) },
        { label: '201 -> webhook p99 at that rate', values: at((r) => fmt(r.p99)), compare: Object.fromEntries(engines.map((e) => [e, best.get(e)?.p99 ?? NaN])) },
        { label: 'deliveries failing verification', values: Object.fromEntries(targets.map((t) => [t.engine, String(t.unverifiedCount)])) },
      ]),
    );
    if (targets.some((t) => t.unverifiedCount > 0)) process.exitCode = 1;
  } finally {
    for (const t of targets) await t.stop();
  }
}
