/**
 * `npm run bench -- transfers [--engine sqlite|postgres|both] [--steps 100,200,300,500,750,1000] [--step-duration 10] [--processes 1 | sqlite=1,postgres=2]`
 *
 * Starts the real server on each engine (an empty database each) with a local receiver that
 * verifies every delivery with standardwebhooks, and paces POST /transfer-out from one funded
 * internal account to one external account, stepping the rate up (both engines at each step, the
 * first alternating). Per transfer it measures the time from its 201 to its verified
 * OUTGOING_PAYMENT.COMPLETED webhook (matched by the transaction id), and reports the highest
 * rate at which every such webhook arrived within 1 s.
 */
import { runPaymentBench } from './webhook-target.js';

const AMOUNT = 100;

export function run(args: string[]): Promise<void> {
  return runPaymentBench(args, {
    name: 'transfers',
    title: 'Transfers bench',
    measured: 'the transfer-out 201 to the verified OUTGOING_PAYMENT.COMPLETED',
    defaultSteps: '100,200,300,500,750,1000',
    async setup(target) {
      // Money moves for an APPROVED customer.
      const { customerId, usdAccountId } = await target.fundedBusiness();
      // A number ending in 000: every transfer completes.
      const payee = await target.api('POST', '/customers/external-accounts', {
        customerId,
        currency: 'USD',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789000', routingNumber: '021000021', bankAccountType: 'CHECKING', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Bench Co' } },
      });
      return {
        path: '/transfer-out',
        body: JSON.stringify({ source: { accountId: usdAccountId }, destination: { accountId: payee.id }, amount: AMOUNT }),
        keyOf: (status, json: { id?: string; status?: string }) => (status === 201 && json.status === 'PENDING' ? json.id : undefined),
      };
    },
  });
}
