/**
 * `npm run bench -- quotes [--engine sqlite|postgres|both] [--steps 50,100,200,300,500,750] [--step-duration 10] [--processes 1]`
 *
 * Starts the real server on each engine (an empty database each) with a local receiver that
 * verifies every delivery with standardwebhooks, and paces POST /quotes with immediatelyExecute
 * (one request, as a platform paying out) from one funded USD internal account to one external EUR
 * account, stepping the rate up (both engines at each step, the first alternating). Per quote it
 * measures the time from its 201 to its payment's verified OUTGOING_PAYMENT.COMPLETED webhook
 * (matched by the quote's transactionId), and reports the highest rate at which every such webhook
 * arrived within 1 s.
 */
import { parseArgs } from 'node:util';
import { ENGINE_LABEL, parseEngines, type Engine } from './engines.js';
import { completedPaymentId, runStepUp, stepResult, WebhookTarget, type SteppedTarget, type StepResult } from './webhook-target.js';

/** USD minor units sent by each quote. */
const AMOUNT = 10_000;
/** A German IBAN ending in 000: every quote payment completes. */
const IBAN = 'DE46370400440532000000';

/** One engine under test: its server and receiver, and the accounts each quote pays between. */
class Target implements SteppedTarget {
  private constructor(
    private readonly target: WebhookTarget,
    private readonly source: string,
    private readonly destination: string,
  ) {}

  static async start(engine: Engine, processes: number): Promise<Target> {
    const target = await WebhookTarget.start(engine, 'quotes', completedPaymentId, { processes });
    try {
      // Money moves for an APPROVED customer.
      const { customerId, usdAccountId } = await target.fundedBusiness();
      const payee = await target.api('POST', '/customers/external-accounts', {
        customerId,
        currency: 'EUR',
        accountInfo: { accountType: 'EUR_ACCOUNT', iban: IBAN, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Roe', countryOfResidence: 'DE' } },
      });
      await target.listen();
      return new Target(target, usdAccountId, payee.id);
    } catch (err) {
      await target.stop();
      throw err;
    }
  }

  get engine(): Engine {
    return this.target.engine;
  }

  get unverifiedCount(): number {
    return this.target.unverifiedCount;
  }

  stop(): Promise<void> {
    return this.target.stop();
  }

  async step(rate: number, seconds: number): Promise<StepResult> {
    const body = JSON.stringify({
      source: { sourceType: 'ACCOUNT', accountId: this.source },
      destination: { destinationType: 'ACCOUNT', accountId: this.destination },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: AMOUNT,
      immediatelyExecute: true,
    });
    const phase = await this.target.paced(rate, seconds, () =>
      this.target.post('/quotes', body, (status, json: { transactionId?: string; status?: string }) => (status === 201 && json.status === 'PROCESSING' ? json.transactionId : undefined)),
    );
    return stepResult(rate, this.target.accepted.size, phase);
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      steps: { type: 'string', default: '50,100,200,300,500,750' },
      'step-duration': { type: 'string', default: '10' },
      processes: { type: 'string', default: '1' },
    },
  });
  const engines = parseEngines(values.engine);
  const processes = Number(values.processes);
  await runStepUp({
    engines,
    start: (engine) => Target.start(engine, processes),
    header: `Quotes bench: ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}, ${processes} server process(es) each; time from the POST /quotes (immediatelyExecute, USD -> EUR) 201 to the verified OUTGOING_PAYMENT.COMPLETED`,
    measured: '201 -> webhook',
    warmUp: { rate: 20, seconds: 1 },
    steps: values.steps.split(',').map(Number),
    seconds: Number(values['step-duration']),
  });
}
