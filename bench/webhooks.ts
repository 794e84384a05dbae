/**
 * `npm run bench -- webhooks [--engine sqlite|postgres|both] [--rate 500] [--duration 10] [--rounds 2]
 * [--steps 500,750,1000,1500,2000,3000] [--step-duration 10] [--no-steps] [--cards 16] [--processes 1 | sqlite=1,postgres=2]`
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
import { ENGINE_LABEL, describeProcesses, describeRounds, parseEngines, parseProcesses, roundOrder, type Engine } from './engines.js';
import { engineTable } from './report.js';
import { percentile } from './stats.js';
import { DEADLINE_MS, fmt, OnTarget, sustained, WebhookTarget } from './webhook-target.js';

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

/** One engine under test: its server and receiver, and the cards it simulates on. */
class Target extends OnTarget {
  private constructor(
    target: WebhookTarget,
    private readonly cards: string[],
  ) {
    super(target);
  }

  /** The server on an empty database of this engine, with `cards` cards and its webhook endpoint set to a fresh receiver. */
  static async start(engine: Engine, cards: number, processes: number): Promise<Target> {
    const target = await WebhookTarget.start(
      engine,
      'webhooks',
      (payload) => (payload.operation as { issuerTransactionToken?: string } | undefined)?.issuerTransactionToken,
      { keepData: Boolean(process.env.BENCH_KEEP_DATA), processes },
    );
    try {
      // A card needs an APPROVED cardholder and its internal account as funding source; it is ACTIVE once provisioned.
      // Authorizations are declined without the funds: enough for every authorization the run can send (funded before the endpoint is set, so no event).
      const { customerId, usdAccountId } = await target.fundedBusiness();
      const ids: string[] = [];
      for (let i = 0; i < cards; i++) ids.push((await target.api('POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [usdAccountId] })).id);
      for (const id of ids) await untilActive(target, id);
      await target.listen();
      return new Target(target, ids);
    } catch (err) {
      await target.stop();
      throw err;
    }
  }

  async phase(rate: number, seconds: number): Promise<Phase> {
    const body = JSON.stringify({ amount: 1250, currency: { code: 'USD' }, merchant: { descriptor: 'BENCH COFFEE', country: 'US' } });
    const { seconds: elapsed, refused, latencies } = await this.target.paced(rate, seconds, (i) =>
      this.target.post(`/sandbox/cards/${this.cards[i % this.cards.length]!}/simulate/authorization`, body, (status, json: { issuerTransactionToken?: string }) =>
        status === 202 ? json.issuerTransactionToken : undefined,
      ),
    );
    return { targetRate: rate, seconds: elapsed, accepted: this.target.accepted.size, refused, latencies };
  }
}

/** Waits until the card is ACTIVE, so that no card event reaches the receiver during a phase. */
async function untilActive(target: WebhookTarget, cardId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await target.api('GET', `/cards/${cardId}`)).state !== 'ACTIVE') {
    if (Date.now() > deadline) throw new Error(`card ${cardId} did not become ACTIVE`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
      processes: { type: 'string', default: '1' },
    },
  });
  const engines = parseEngines(values.engine);
  const rate = Number(values.rate);
  const rounds = Number(values.rounds);
  const processes = parseProcesses(values.processes);
  const targets: Target[] = [];
  try {
    for (const engine of engines) targets.push(await Target.start(engine, Number(values.cards), processes[engine]));
    process.stdout.write(
      `Webhooks bench: ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}, ${values.cards} cards, server processes: ${describeProcesses(engines, processes)}, JOB_CONCURRENCY=${process.env.JOB_CONCURRENCY ?? 'default'}; ` +
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
          if (sustained(r)) best.set(t.engine, r);
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
