/**
 * `npm run bench -- webhooks [--engine sqlite|postgres|both] [--rate 500] [--duration 10] [--rounds 2]
 * [--steps 500,750,1000,1500,2000,3000] [--step-duration 10] [--no-steps] [--cards 16]`
 *
 * Starts the real server on each engine (an empty database each) and, for each, a local receiver
 * that verifies every delivery with standardwebhooks. Paces card authorization simulations at a
 * fixed rate and measures, per simulation, the time from its 202 to its verified webhook (matched
 * by issuerTransactionToken): each engine `rounds` times for `duration` s, one engine at a time in
 * the order SQLite, PostgreSQL, PostgreSQL, SQLite, .... Then steps the rate up, both engines at
 * each step (the first alternating), to find the highest rate at which every webhook still
 * arrives within 1 s.
 */
import { parseArgs } from 'node:util';
import { WebhookReceiver } from '../src/cli/webhook-receiver.js';
import type { ServerProcess } from '../src/cli/server-process.js';
import { ENGINE_LABEL, describeRounds, emptyDatabase, parseEngines, roundOrder, startServer, type BenchDatabase, type Engine } from './engines.js';
import { engineTable } from './report.js';
import { pacedPhase } from './paced-load.js';
import { percentile } from './stats.js';

const DEADLINE_MS = 1000;

/** What one run at a fixed rate saw; `latencies` (ms, ascending) are those of the webhooks that arrived. */
interface Phase {
  targetRate: number;
  seconds: number;
  accepted: number;
  refused: number;
  latencies: number[];
}

/** One or more phases at the same rate, taken together. */
interface PhaseResult {
  targetRate: number;
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

function combine(phases: Phase[]): PhaseResult {
  const latencies = phases.flatMap((p) => p.latencies).sort((a, b) => a - b);
  const accepted = phases.reduce((n, p) => n + p.accepted, 0);
  return {
    targetRate: phases[0]!.targetRate,
    accepted,
    refused: phases.reduce((n, p) => n + p.refused, 0),
    achievedRate: accepted / phases.reduce((n, p) => n + p.seconds, 0),
    delivered: latencies.length,
    lost: accepted - latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    withinDeadline: latencies.filter((l) => l <= DEADLINE_MS).length,
  };
}

/** One engine under test: its server, the cards it simulates on, and the receiver of its webhooks. */
class Target {
  /** issuerTransactionToken -> time of its 202 / of its verified webhook (performance.now()). */
  private accepted = new Map<string, number>();
  private arrived = new Map<string, number>();
  private unverified = 0;
  readonly receiver: WebhookReceiver;
  private cards: string[] = [];

  private constructor(readonly engine: Engine, private readonly db: BenchDatabase, private readonly server: ServerProcess & { auth: string }) {
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

  /** The server on an empty database of this engine, with `cards` cards and its webhook endpoint set to a fresh receiver. */
  static async start(engine: Engine, cards: number): Promise<Target> {
    const db = await emptyDatabase(engine, 'webhooks');
    // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server.
    const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const server = await startServer(db, { SERVICE_ENV: 'sandbox', WORKER_ENABLED: '1' }, { nodeArgs }).catch(async (err: unknown) => {
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
      // A card needs an APPROVED cardholder (a business without a 001/002/003 registration number is approved on submission) and its internal account as funding source; it is ACTIVE once provisioned.
      await target.api('POST', '/verifications', { customerId: customer.id });
      // Authorizations are declined without the funds: enough for every authorization the run can send (funded before the endpoint is set, so no event).
      const account = (await target.api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&type=INTERNAL_FIAT&currency=USD`)).data[0];
      for (let i = 0; i < 10; i++) await target.api('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000_000_000 });
      for (let i = 0; i < cards; i++) target.cards.push((await target.api('POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [account.id] })).id);
      for (const id of target.cards) await target.untilActive(id);
      await target.receiver.start();
      const config = await target.api('PATCH', '/config', { webhookEndpoint: target.receiver.url });
      target.receiver.trust(config);
      return target;
    } catch (err) {
      await target.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await this.receiver.stop();
    await this.server.stop();
    if (process.env.BENCH_KEEP_DATA) process.stderr.write(`kept the ${ENGINE_LABEL[this.engine]} data (${JSON.stringify(this.db.env)})\n`);
    else await this.db.drop();
  }

  get unverifiedCount(): number {
    return this.unverified;
  }

  async phase(rate: number, seconds: number): Promise<Phase> {
    this.accepted.clear();
    this.arrived.clear();
    const body = JSON.stringify({ amount: 1250, currency: { code: 'USD' }, merchant: { descriptor: 'BENCH COFFEE', country: 'US' } });
    const { seconds: elapsed, refused, latencies } = await pacedPhase(
      rate,
      seconds,
      async (i) => {
        const card = this.cards[i % this.cards.length]!;
        const res = await fetch(`${this.server.baseUrl}/sandbox/cards/${card}/simulate/authorization`, {
          method: 'POST',
          headers: { authorization: this.server.auth, 'content-type': 'application/json' },
          body,
        });
        const at = performance.now();
        const json = (await res.json()) as { issuerTransactionToken?: string };
        return { key: res.status === 202 ? json.issuerTransactionToken : undefined, at };
      },
      this.arrived,
      this.accepted,
    );
    return { targetRate: rate, seconds: elapsed, accepted: this.accepted.size, refused, latencies };
  }

  /** Waits until the card is ACTIVE, so that no card event reaches the receiver during a phase. */
  private async untilActive(cardId: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((await this.api('GET', `/cards/${cardId}`)).state !== 'ACTIVE') {
      if (Date.now() > deadline) throw new Error(`card ${cardId} did not become ACTIVE`);
      await new Promise((r) => setTimeout(r, 20));
    }
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

function printRow(engine: Engine, r: PhaseResult): void {
  process.stdout.write(
    `  ${ENGINE_LABEL[engine].padEnd(10)}  ${String(r.targetRate).padStart(5)}/s  achieved ${r.achievedRate.toFixed(0).padStart(5)}/s  accepted ${String(r.accepted).padStart(6)}  refused ${String(r.refused).padStart(4)}  ` +
      `lost ${String(r.lost).padStart(4)}  p50 ${fmt(r.p50).padStart(9)}  p99 ${fmt(r.p99).padStart(9)}  max ${fmt(r.max).padStart(9)}  ` +
      `within 1 s ${((100 * r.withinDeadline) / Math.max(1, r.accepted)).toFixed(2)}%\n`,
  );
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      rate: { type: 'string', default: '500' },
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '2' },
      steps: { type: 'string', default: '500,750,1000,1500,2000,3000' },
      'step-duration': { type: 'string', default: '10' },
      'no-steps': { type: 'boolean', default: false },
      cards: { type: 'string', default: '16' },
    },
  });
  const engines = parseEngines(values.engine);
  const rate = Number(values.rate);
  const rounds = Number(values.rounds);
  const targets: Target[] = [];
  try {
    for (const engine of engines) targets.push(await Target.start(engine, Number(values.cards)));
    process.stdout.write(
      `Webhooks bench: ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}, ${values.cards} cards, JOB_CONCURRENCY=${process.env.JOB_CONCURRENCY ?? 'default'}; ` +
        'time from the simulate 202 to the verified webhook\n\n',
    );
    for (const t of targets) await t.phase(100, 2); // warm-up: connections, statement caches, JIT
    process.stdout.write(`Fixed rate (${rate}/s): each engine ${rounds} times for ${values.duration} s, one engine at a time in the order ${describeRounds(engines, rounds)}:\n`);
    const fixed = new Map<Engine, Phase[]>(engines.map((e) => [e, []]));
    for (let r = 0; r < rounds; r++) {
      for (const t of roundOrder(targets, r)) {
        const p = await t.phase(rate, Number(values.duration));
        printRow(t.engine, combine([p]));
        fixed.get(t.engine)!.push(p);
      }
    }
    const main = new Map(engines.map((e) => [e, combine(fixed.get(e)!)]));

    const best = new Map<Engine, PhaseResult>();
    if (!values['no-steps']) {
      process.stdout.write(`\nStepping up (${values['step-duration']} s each, both engines at each step, the first alternating) until a webhook takes longer than 1 s or is lost:\n`);
      let climbing = [...targets];
      for (const [i, stepRate] of values.steps.split(',').map(Number).entries()) {
        if (climbing.length === 0) break;
        for (const t of roundOrder([...climbing], i)) {
          const r = combine([await t.phase(stepRate, Number(values['step-duration']))]);
          printRow(t.engine, r);
          const sustained = r.lost === 0 && r.refused === 0 && r.withinDeadline === r.accepted && r.achievedRate >= 0.95 * stepRate;
          if (sustained) best.set(t.engine, r);
          else climbing = climbing.filter((c) => c !== t);
        }
      }
    }

    const per = (f: (r: PhaseResult) => string) => Object.fromEntries(engines.map((e) => [e, f(main.get(e)!)]));
    const num = (f: (r: PhaseResult) => number) => Object.fromEntries(engines.map((e) => [e, f(main.get(e)!)]));
    process.stdout.write(`\nSummary (fixed rate: all ${rounds} runs of each engine taken together)\n\n`);
    process.stdout.write(
      engineTable(engines, [
        ...(values['no-steps']
          ? []
          : [
              {
                label: 'highest rate with every webhook within 1 s',
                values: Object.fromEntries(engines.map((e) => [e, best.has(e) ? `${best.get(e)!.targetRate}/s (p99 ${fmt(best.get(e)!.p99)})` : 'none of the steps'])),
                compare: Object.fromEntries(engines.map((e) => [e, best.get(e)?.targetRate ?? NaN])),
              },
            ]),
        { label: `achieved rate at ${rate}/s`, values: per((r) => `${r.achievedRate.toFixed(0)}/s`) },
        { label: `202 -> webhook p50 at ${rate}/s`, values: per((r) => fmt(r.p50)), compare: num((r) => r.p50) },
        { label: `202 -> webhook p99 at ${rate}/s`, values: per((r) => fmt(r.p99)), compare: num((r) => r.p99) },
        { label: `within 1 s at ${rate}/s`, values: per((r) => `${((100 * r.withinDeadline) / Math.max(1, r.accepted)).toFixed(2)}%`) },
        { label: `lost at ${rate}/s`, values: per((r) => `${r.lost} of ${r.accepted}`) },
        { label: 'deliveries failing verification', values: Object.fromEntries(targets.map((t) => [t.engine, String(t.unverifiedCount)])) },
      ]),
    );
    if ([...main.values()].some((r) => r.lost > 0) || targets.some((t) => t.unverifiedCount > 0)) process.exitCode = 1;
  } finally {
    for (const t of targets) await t.stop();
  }
}
