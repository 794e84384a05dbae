/**
 * `npm run bench -- transfers [--engine sqlite|postgres|both] [--steps 100,200,300,500,750,1000] [--step-duration 10] [--processes 1]`
 *
 * Starts the real server on each engine (an empty database each) with a local receiver that
 * verifies every delivery with standardwebhooks, and paces POST /transfer-out from one funded
 * internal account to one external account, stepping the rate up (both engines at each step, the
 * first alternating). Per transfer it measures the time from its 201 to its verified
 * OUTGOING_PAYMENT.COMPLETED webhook (matched by the transaction id), and reports the highest
 * rate at which every such webhook arrived within 1 s.
 */
import { parseArgs } from 'node:util';
import { ENGINE_LABEL, parseEngines, type Engine } from './engines.js';
import { completedPaymentId, runStepUp, stepResult, WebhookTarget, type SteppedTarget, type StepResult } from './webhook-target.js';

const AMOUNT = 100;

/** One engine under test: its server and receiver, and the accounts transfers move between. */
class Target implements SteppedTarget {
  private constructor(
    private readonly target: WebhookTarget,
    private readonly source: string,
    private readonly destination: string,
  ) {}

  static async start(engine: Engine, processes: number): Promise<Target> {
    const target = await WebhookTarget.start(engine, 'transfers', completedPaymentId, { processes });
    try {
      // Money moves for an APPROVED customer.
      const { customerId, usdAccountId } = await target.fundedBusiness();
      // A number ending in 000: every transfer completes.
      const payee = await target.api('POST', '/customers/external-accounts', {
        customerId,
        currency: 'USD',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789000', routingNumber: '021000021', bankAccountType: 'CHECKING', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Bench Co' } },
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
    const body = JSON.stringify({ source: { accountId: this.source }, destination: { accountId: this.destination }, amount: AMOUNT });
    const phase = await this.target.paced(rate, seconds, () =>
      this.target.post('/transfer-out', body, (status, json: { id?: string; status?: string }) => (status === 201 && json.status === 'PENDING' ? json.id : undefined)),
    );
    return stepResult(rate, this.target.accepted.size, phase);
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      steps: { type: 'string', default: '100,200,300,500,750,1000' },
      'step-duration': { type: 'string', default: '10' },
      processes: { type: 'string', default: '1' },
    },
  });
  const engines = parseEngines(values.engine);
  const processes = Number(values.processes);
  await runStepUp({
    engines,
    start: (engine) => Target.start(engine, processes),
    header: `Transfers bench: ${engines.map((e) => ENGINE_LABEL[e]).join(' and ')}, ${processes} server process(es) each; time from the transfer-out 201 to the verified OUTGOING_PAYMENT.COMPLETED`,
    measured: '201 -> webhook',
    warmUp: { rate: 20, seconds: 1 },
    steps: values.steps.split(',').map(Number),
    seconds: Number(values['step-duration']),
  });
}
