/**
 * What the benches that pace requests and wait for each one's verified webhook share (transfers,
 * quotes, webhooks): the real server on an empty database of one engine, a receiver that verifies
 * every delivery with standardwebhooks, the accepted/arrived maps the pacer fills, and the step-up
 * run that finds the highest rate at which every webhook arrives within 1 s.
 */
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { WebhookReceiver, type ReceivedWebhook } from '../src/cli/webhook-receiver.js';
import type { ServerProcess } from '../src/cli/server-process.js';
import { ENGINE_LABEL, describeProcesses, emptyDatabase, parseEngines, parseProcesses, roundOrder, startServer, type BenchDatabase, type Engine } from './engines.js';
import { pacedPhase, type PacedPhase } from './paced-load.js';
import { engineTable } from './report.js';
import { percentile } from './stats.js';

export const DEADLINE_MS = 1000;

/** The transaction id of a verified OUTGOING_PAYMENT.COMPLETED (the transfers and quotes benches' key). */
export const completedPaymentId = (payload: Record<string, unknown>): string | undefined =>
  payload.type === 'OUTGOING_PAYMENT.COMPLETED' ? (payload.data as { id?: string } | undefined)?.id : undefined;

export interface TargetOptions {
  /** Node flags for the server process; BENCH_NODE_ARGS unless given. */
  nodeArgs?: string[];
  /** Keep the database at the end and say where it is (BENCH_KEEP_DATA, for the webhooks and payment benches). */
  keepData?: boolean;
  /** Server processes sharing the port (HTTP_PROCESSES; the benches' --processes): 1 unless said. */
  processes?: number;
}

/**
 * One engine under test: its server on an empty database (`bench_<name>` on PostgreSQL) with the
 * worker, and the receiver of its webhooks. `keyOf` names the request a verified delivery answers
 * (undefined for any other delivery); its first arrival is recorded.
 */
export class WebhookTarget {
  /** key -> time of its accepted answer / of its verified webhook (performance.now()). */
  readonly accepted = new Map<string, number>();
  readonly arrived = new Map<string, number>();
  private unverified = 0;
  readonly receiver: WebhookReceiver;

  private constructor(
    readonly engine: Engine,
    private readonly db: BenchDatabase,
    private readonly server: ServerProcess & { auth: string },
    keyOf: (payload: Record<string, unknown>) => string | undefined,
    private readonly options: TargetOptions,
  ) {
    this.receiver = new WebhookReceiver({
      onDelivery: (d: ReceivedWebhook) => {
        if (!d.verified) {
          this.unverified += 1;
          return;
        }
        const key = d.payload ? keyOf(d.payload) : undefined;
        if (key && !this.arrived.has(key)) this.arrived.set(key, d.receivedAtHr);
      },
    });
    // Keep the receiver's own cost out of the measurement: it stores nothing.
    this.receiver.deliveries.push = () => 0;
  }

  /** The server on an empty database of this engine; `setup` then makes its data before any webhook endpoint is set (`listen`). */
  static async start(engine: Engine, name: string, keyOf: (payload: Record<string, unknown>) => string | undefined, options: TargetOptions = {}): Promise<WebhookTarget> {
    const db = await emptyDatabase(engine, name);
    // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the server of any paced bench.
    const nodeArgs = options.nodeArgs ?? process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const server = await startServer(db, { SERVICE_ENV: 'sandbox', WORKER_ENABLED: '1', HTTP_PROCESSES: String(options.processes ?? 1) }, { nodeArgs }).catch(async (err: unknown) => {
      await db.drop();
      throw err;
    });
    if (!server.auth) {
      await server.stop();
      await db.drop();
      throw new Error('the server printed no credentials: its database was not empty');
    }
    return new WebhookTarget(engine, db, server as ServerProcess & { auth: string }, keyOf, options);
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  get auth(): string {
    return this.server.auth;
  }

  get unverifiedCount(): number {
    return this.unverified;
  }

  /** Starts the receiver and makes it the platform's webhook endpoint, trusting the secret the config answers. */
  async listen(): Promise<void> {
    await this.receiver.start();
    this.receiver.trust(await this.api('PATCH', '/config', { webhookEndpoint: this.receiver.url }));
  }

  async stop(): Promise<void> {
    await this.receiver.stop();
    await this.server.stop();
    if (this.options.keepData) process.stderr.write(`kept the ${ENGINE_LABEL[this.engine]} data (${JSON.stringify(this.db.env)})\n`);
    else await this.db.drop();
  }

  /** `rate` requests a second for `seconds` (pacedPhase), each matched to its webhook; the maps start empty. */
  paced(rate: number, seconds: number, send: (i: number) => Promise<{ key: string | undefined; at: number }>): Promise<PacedPhase> {
    this.accepted.clear();
    this.arrived.clear();
    return pacedPhase(rate, seconds, send, this.arrived, this.accepted);
  }

  /** A JSON POST timed at its answer: the key is `keyOf` the answer when `ok` says it was accepted. */
  async post(path: string, body: string, keyOf: (status: number, json: any) => string | undefined): Promise<{ key: string | undefined; at: number }> {
    // undici's request, not fetch: the load generator shares the machine with the server under
    // test, and fetch's Request, Response and web streams were a fifth of this process's time
    // (profiled: bench webhooks, 300/s), taken from the server's share.
    const res = await request(`${this.server.baseUrl}${path}`, { method: 'POST', headers: { authorization: this.server.auth, 'content-type': 'application/json' }, body });
    const at = performance.now();
    return { key: keyOf(res.statusCode, await res.body.json()), at };
  }

  /** A setup call: its JSON answer, or an error naming the call. */
  async api(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.server.baseUrl}${path}`, {
      method,
      headers: { authorization: this.server.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** An APPROVED business (no 001/002/003 registration number: approved on submission) and its USD internal account, funded before any endpoint is set (so no event). */
  async fundedBusiness(): Promise<{ customerId: string; usdAccountId: string }> {
    const customer = await this.api('POST', '/customers', {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Bench Co', incorporatedOn: '2020-01-01', taxId: '99-9999999' },
      address: { line1: '1 Bench St', postalCode: '94105', country: 'US' },
    });
    await this.api('POST', '/verifications', { customerId: customer.id });
    const usdAccountId = (await this.api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&type=INTERNAL_FIAT&currency=USD`)).data[0].id as string;
    for (let i = 0; i < 10; i++) await this.api('POST', `/sandbox/internal-accounts/${usdAccountId}/fund`, { amount: 100_000_000_000 });
    return { customerId: customer.id as string, usdAccountId };
  }
}

/** One step of a step-up run. */
export interface StepResult {
  targetRate: number;
  achievedRate: number;
  accepted: number;
  refused: number;
  lost: number;
  p50: number;
  p99: number;
  withinDeadline: number;
}

/** A paced phase as a step's result. */
export function stepResult(rate: number, accepted: number, { seconds, refused, latencies }: PacedPhase): StepResult {
  return {
    targetRate: rate,
    achievedRate: accepted / seconds,
    accepted,
    refused,
    lost: accepted - latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    withinDeadline: latencies.filter((l) => l <= DEADLINE_MS).length,
  };
}

/** Whether a step held its rate: nothing refused or lost, every webhook within 1 s, at least 95% of the rate achieved. */
export const sustained = (r: Pick<StepResult, 'lost' | 'refused' | 'withinDeadline' | 'accepted' | 'achievedRate' | 'targetRate'>): boolean =>
  r.lost === 0 && r.refused === 0 && r.withinDeadline === r.accepted && r.achievedRate >= 0.95 * r.targetRate;

export const fmt = (ms: number) => (Number.isNaN(ms) ? '-' : `${ms.toFixed(1)} ms`);

function printStep(engine: Engine, r: StepResult): void {
  process.stdout.write(
    `  ${ENGINE_LABEL[engine].padEnd(10)}  ${String(r.targetRate).padStart(5)}/s  achieved ${r.achievedRate.toFixed(0).padStart(5)}/s  accepted ${String(r.accepted).padStart(6)}  ` +
      `refused ${String(r.refused).padStart(4)}  lost ${String(r.lost).padStart(4)}  p50 ${fmt(r.p50).padStart(9)}  p99 ${fmt(r.p99).padStart(9)}  ` +
      `within 1 s ${((100 * r.withinDeadline) / Math.max(1, r.accepted)).toFixed(2)}%\n`,
  );
}

/** An engine's target in a step-up run: its step at a rate. */
export interface SteppedTarget {
  readonly engine: Engine;
  readonly unverifiedCount: number;
  step(rate: number, seconds: number): Promise<StepResult>;
  stop(): Promise<void>;
}

/**
 * Starts a target per engine, warms each up, then steps the rate up through `steps` (`seconds`
 * each, both engines at each step, the first alternating) until each misses: the table gives the
 * highest rate each sustained with p50 and p99 there, and PostgreSQL over SQLite.
 */
export async function runStepUp<T extends SteppedTarget>(options: {
  engines: Engine[];
  start: (engine: Engine) => Promise<T>;
  header: string;
  /** What is timed, for the summary's rows: e.g. "201 -> webhook". */
  measured: string;
  warmUp: { rate: number; seconds: number };
  steps: number[];
  seconds: number;
}): Promise<void> {
  const { engines, seconds } = options;
  const targets: T[] = [];
  try {
    for (const engine of engines) targets.push(await options.start(engine));
    process.stdout.write(`${options.header}\n\n`);
    for (const t of targets) await t.step(options.warmUp.rate, options.warmUp.seconds); // warm-up: connections, statement caches, JIT
    process.stdout.write(`Stepping up (${seconds} s each, both engines at each step, the first alternating) until a webhook takes longer than 1 s or is lost:\n`);
    const best = new Map<Engine, StepResult>();
    let climbing = [...targets];
    for (const [i, rate] of options.steps.entries()) {
      if (climbing.length === 0) break;
      for (const t of roundOrder([...climbing], i)) {
        const r = await t.step(rate, seconds);
        printStep(t.engine, r);
        if (sustained(r)) best.set(t.engine, r);
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
        { label: `${options.measured} p50 at that rate`, values: at((r) => fmt(r.p50)), compare: Object.fromEntries(engines.map((e) => [e, best.get(e)?.p50 ?? NaN])) },
        { label: `${options.measured} p99 at that rate`, values: at((r) => fmt(r.p99)), compare: Object.fromEntries(engines.map((e) => [e, best.get(e)?.p99 ?? NaN])) },
        { label: 'deliveries failing verification', values: Object.fromEntries(targets.map((t) => [t.engine, String(t.unverifiedCount)])) },
      ]),
    );
    if (targets.some((t) => t.unverifiedCount > 0)) process.exitCode = 1;
  } finally {
    for (const t of targets) await t.stop();
  }
}

/** What a payment bench sends at every tick: the POST, and how its answer names the payment whose webhook is awaited. */
export interface PaymentRequest {
  path: string;
  body: string;
  keyOf: (status: number, json: any) => string | undefined;
}

/** What every bench's engine wrapper answers from its WebhookTarget: the engine, the failed verifications, the stop. */
export abstract class OnTarget {
  constructor(protected readonly target: WebhookTarget) {}

  get engine(): Engine {
    return this.target.engine;
  }

  get unverifiedCount(): number {
    return this.target.unverifiedCount;
  }

  stop(): Promise<void> {
    return this.target.stop();
  }
}

/** One engine under a payment bench: its target, and the request its setup made ready. */
class PaymentTarget extends OnTarget implements SteppedTarget {
  constructor(
    target: WebhookTarget,
    private readonly request: PaymentRequest,
  ) {
    super(target);
  }

  async step(rate: number, seconds: number): Promise<StepResult> {
    const { path, body, keyOf } = this.request;
    const phase = await this.target.paced(rate, seconds, () => this.target.post(path, body, keyOf));
    return stepResult(rate, this.target.accepted.size, phase);
  }
}

/**
 * The benches that pace one payment request and await each payment's verified
 * OUTGOING_PAYMENT.COMPLETED (transfers, quotes): their options (`--engine`, `--steps`,
 * `--step-duration`, `--processes`) and their step-up run. `setup` makes each engine's data on its
 * fresh server, before the receiver listens, and answers the request to pace.
 */
export async function runPaymentBench(
  args: string[],
  bench: { name: string; title: string; measured: string; defaultSteps: string; setup: (target: WebhookTarget) => Promise<PaymentRequest> },
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      steps: { type: 'string', default: bench.defaultSteps },
      'step-duration': { type: 'string', default: '10' },
      processes: { type: 'string', default: '1' },
    },
  });
  const engines = parseEngines(values.engine);
  const processes = parseProcesses(values.processes);
  const start = async (engine: Engine): Promise<PaymentTarget> => {
    const target = await WebhookTarget.start(engine, bench.name, completedPaymentId, { processes: processes[engine], keepData: Boolean(process.env.BENCH_KEEP_DATA) });
    try {
      const request = await bench.setup(target);
      await target.listen();
      return new PaymentTarget(target, request);
    } catch (err) {
      await target.stop();
      throw err;
    }
  };
  await runStepUp({
    engines,
    start,
    header: `${bench.title}: ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}, server processes: ${describeProcesses(engines, processes)}; time from ${bench.measured}`,
    measured: '201 -> webhook',
    warmUp: { rate: 20, seconds: 1 },
    steps: values.steps.split(',').map(Number),
    seconds: Number(values['step-duration']),
  });
}
