/**
 * `npm run bench -- quotes [--engine sqlite|postgres|both] [--steps 50,100,200,300,500,750] [--step-duration 10] [--processes 1 | sqlite=1,postgres=2]`
 *
 * Starts the real server on each engine (an empty database each) with a local receiver that
 * verifies every delivery with standardwebhooks, and paces POST /quotes with immediatelyExecute
 * (one request, as a platform paying out) from one funded USD internal account to one external EUR
 * account, stepping the rate up (both engines at each step, the first alternating). Per quote it
 * measures the time from its 201 to its payment's verified OUTGOING_PAYMENT.COMPLETED webhook
 * (matched by the quote's transactionId), and reports the highest rate at which every such webhook
 * arrived within 1 s.
 */
import { runPaymentBench } from './webhook-target.js';

/** USD minor units sent by each quote. */
const AMOUNT = 10_000;
/** A German IBAN ending in 000: every quote payment completes. */
const IBAN = 'DE46370400440532000000';

export function run(args: string[]): Promise<void> {
  return runPaymentBench(args, {
    name: 'quotes',
    title: 'Quotes bench',
    measured: 'the POST /quotes (immediatelyExecute, USD -> EUR) 201 to the verified OUTGOING_PAYMENT.COMPLETED',
    defaultSteps: '50,100,200,300,500,750',
    async setup(target) {
      // Money moves for an APPROVED customer.
      const { customerId, usdAccountId } = await target.fundedBusiness();
      const payee = await target.api('POST', '/customers/external-accounts', {
        customerId,
        currency: 'EUR',
        accountInfo: { accountType: 'EUR_ACCOUNT', iban: IBAN, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Roe', countryOfResidence: 'DE' } },
      });
      return {
        path: '/quotes',
        body: JSON.stringify({
          source: { sourceType: 'ACCOUNT', accountId: usdAccountId },
          destination: { destinationType: 'ACCOUNT', accountId: payee.id },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: AMOUNT,
          immediatelyExecute: true,
        }),
        // The quote answers PROCESSING once executed; its payment is the transaction awaited.
        keyOf: (status, json: { transactionId?: string; status?: string }) => (status === 201 && json.status === 'PROCESSING' ? json.transactionId : undefined),
      };
    },
  });
}
