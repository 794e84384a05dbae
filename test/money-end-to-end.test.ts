import { expect, it } from 'vitest';
import { startWorker } from '../src/jobs/index.js';
import { entriesOf } from '../src/store/accounts-repo.js';
import { activeFundedCard } from './helpers/money.js';
import { describeEachEngine } from './helpers/test-app.js';
import { connectReceiver, startWebhookReceiver, type ReceivedWebhook } from './helpers/webhook-receiver.js';

const FUNDS = 50_000;
const DELAYED_PULL_MS = 300;

/** A card transaction's pullSummary, settlementSummary and refundSummary, as [count, totalAmount(, pendingCount)]. */
function summaries(pull: [number, number, number], settlement: [number, number] = [0, 0], refund: [number, number] = [0, 0]) {
  return {
    pullSummary: { count: pull[0], totalAmount: pull[1], pendingCount: pull[2] },
    settlementSummary: { count: settlement[0], totalAmount: settlement[1] },
    refundSummary: { count: refund[0], totalAmount: refund[1] },
  };
}
type Summaries = ReturnType<typeof summaries>;
const summariesIn = (x: Record<string, unknown>) => ({ pullSummary: x.pullSummary, settlementSummary: x.settlementSummary, refundSummary: x.refundSummary });

interface Balances {
  available: number;
  total: number;
}

/**
 * What a platform sees of its money, end to end, through the API and a real receiver that verifies
 * both signatures of every delivery: a funded card authorizes, clears (a tip above the hold), is
 * refunded and the refund reversed, expires twice (authorization_expiry, and a clearing of 0) and is
 * declined for every reason; after each step the account's balances are what the ledger's arithmetic
 * says, equal the sum of its entries, and the last INTERNAL_ACCOUNT.BALANCE_UPDATED delivered says so too.
 */
describeEachEngine(
  'money end to end, every webhook verified',
  (t) => {
    it('funds, authorizes, clears, returns, reverses, expires and is declined, the balances adding up at every step', { timeout: 120_000 }, async () => {
      const caller = await t.newCaller();
      const receiver = await startWebhookReceiver();
      const worker = startWorker(t.services, t.app.log);
      try {
        await connectReceiver(caller, receiver);
        const { cardId, accountId, cardholderId } = await activeFundedCard(t, caller, FUNDS);
        const model: Balances = { available: FUNDS, total: FUNDS };

        const verifiedDelivery = (match: (d: ReceivedWebhook) => boolean, what: string) =>
          receiver.waitFor((ds) => ds.some((d) => d.verified && match(d)), 20_000).then(
            () => receiver.deliveries.find((d) => d.verified && match(d))!,
            (err: Error) => {
              throw new Error(`${what}: ${err.message}`);
            },
          );
        const byToken = (token: string, type: string) =>
          verifiedDelivery((d) => d.payload?.type === type && (d.payload.operation as { issuerTransactionToken?: string })?.issuerTransactionToken === token, `${type} for ${token}`);
        const balanceEventsSent = async () => (await caller.req('GET', '/webhook-events?type=INTERNAL_ACCOUNT.BALANCE_UPDATED&limit=1')).json().totalCount as number;

        /** The account now: through the API, from its ledger entries, and as the latest balance webhook has it. */
        async function expectBalances(step: string, moved: boolean) {
          const page = (await caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(cardholderId)}&currency=USD`)).json();
          const account = page.data.find((a: { id: string }) => a.id === accountId);
          expect({ available: account.balance.amount, total: account.totalBalance.amount }, step).toEqual(model);
          const entries = await entriesOf(t.services.store.db, accountId);
          expect(entries.reduce((sum, e) => sum + Number(e.amount), 0), `${step}: available = sum of the entries`).toBe(model.available);
          expect(entries.filter((e) => !['HOLD', 'HOLD_RELEASE'].includes(e.kind)).reduce((sum, e) => sum + Number(e.amount), 0), `${step}: total = sum of the entries that are not holds`).toBe(model.total);
          if (moved) {
            const d = await verifiedDelivery((x) => {
              const data = x.payload?.data as { id?: string; balance?: { amount: number }; totalBalance?: { amount: number } } | undefined;
              return x.payload?.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && data?.id === accountId && data.balance?.amount === model.available && data.totalBalance?.amount === model.total;
            }, `${step}: INTERNAL_ACCOUNT.BALANCE_UPDATED with ${JSON.stringify(model)}`);
            expect(d.verified).toBe(true);
          }
        }

        const readTransaction = async (id: string) => (await caller.req('GET', `/transactions/${id}`)).json() as Record<string, unknown>;

        /**
         * Simulates, waits for the verified webhook of the operation (by its token), and checks the
         * transaction it carries: its summaries are `expected`, and so are the transaction's as read
         * now, unless an operation of its own is still to land (`laterOperation`: a delayed pull report).
         */
        async function step(
          kind: string,
          body: Record<string, unknown>,
          type: string,
          status: string,
          expected: Summaries,
          laterOperation = false,
        ): Promise<{ id: string; webhook: ReceivedWebhook }> {
          const res = await caller.req('POST', `/sandbox/cards/${cardId}/simulate/${kind}`, body);
          expect(res.statusCode, `${kind}: ${res.body}`).toBe(202);
          const token = res.json().issuerTransactionToken as string;
          const id = (res.json().cardTransactionId ?? body.cardTransactionId) as string;
          const webhook = await byToken(token, type);
          const data = webhook.payload!.data as Record<string, any>;
          expect(data).toMatchObject({ id, type: 'CARD', status, cardId, accountId, customerId: cardholderId });
          expect(summariesIn(data), `${kind}: the summaries the webhook carries`).toEqual(expected);
          if (!laterOperation) expect(summariesIn(await readTransaction(id)), `${kind}: the summaries read`).toEqual(expected);
          return { id, webhook };
        }

        await verifiedDelivery((d) => d.payload?.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED' && (d.payload.data as { id: string }).id === accountId, 'the funding');
        await expectBalances('funded', true);

        // Authorize 10000: held.
        const a = await step('authorization', { amount: 10_000, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } }, 'CARD_TRANSACTION.AUTHORIZED', 'AUTHORIZED', summaries([1, 10_000, 0]));
        model.available -= 10_000;
        await expectBalances('authorized 10000', true);

        // Clear 12000, 2000 above the hold (a tip): the hold becomes a debit, the extra is a second pull.
        const cleared = await step('clearing', { cardTransactionId: a.id, amount: 12_000 }, 'CARD_TRANSACTION.SETTLED', 'SETTLED', summaries([2, 12_000, 0], [1, 12_000]));
        expect(cleared.webhook.payload!.data).toMatchObject({ settledAmount: { amount: 12_000 } });
        model.available -= 2_000;
        model.total -= 12_000;
        await expectBalances('cleared 12000', true);

        // Return all of it, then reverse the return.
        await step('return', { cardTransactionId: a.id, amount: 12_000 }, 'CARD_TRANSACTION.REFUNDED', 'REFUNDED', summaries([2, 12_000, 0], [1, 12_000], [1, 12_000]));
        model.available += 12_000;
        model.total += 12_000;
        await expectBalances('returned 12000', true);
        await step('return_reversal', { cardTransactionId: a.id }, 'CARD_TRANSACTION.SETTLED', 'SETTLED', summaries([2, 12_000, 0], [1, 12_000], [0, 0]));
        model.available -= 12_000;
        model.total -= 12_000;
        await expectBalances('return reversed', true);

        // Two authorizations that expire: by authorization_expiry, and by a clearing of 0.
        for (const [expiry, body] of [
          ['authorization_expiry', {}],
          ['clearing', { amount: 0 }],
        ] as const) {
          const b = await step('authorization', { amount: 3_000, currency: { code: 'USD' }, merchant: { descriptor: 'HOTEL' } }, 'CARD_TRANSACTION.AUTHORIZED', 'AUTHORIZED', summaries([1, 3_000, 0]));
          model.available -= 3_000;
          await expectBalances(`authorized 3000 (to expire by ${expiry})`, true);
          // An expiry settles nothing: the summaries stay the authorization's.
          await step(expiry, { cardTransactionId: b.id, ...body }, 'CARD_TRANSACTION.EXPIRED', 'EXPIRED', summaries([1, 3_000, 0]));
          model.available += 3_000;
          await expectBalances(`expired by ${expiry}`, true);
        }

        // Declined, for every reason: nothing held, no balance event, a DECLINED webhook with the reason.
        const declines: [string, number, string][] = [
          ['AMAZON RETAIL US-002', 500, 'INSUFFICIENT_FUNDS'],
          ['BLUE BOTTLE 003', 500, 'CARD_PAUSED'],
          ['YACHT BROKER', model.available + 1, 'INSUFFICIENT_FUNDS'],
        ];
        for (const [descriptor, amount, reason] of declines) {
          const sent = await balanceEventsSent();
          // An INSUFFICIENT_FUNDS decline is a pull that failed (counted, amount 0); a CARD_PAUSED one never pulled.
          const pulls = reason === 'INSUFFICIENT_FUNDS' ? 1 : 0;
          const d = await step('authorization', { amount, currency: { code: 'USD' }, merchant: { descriptor } }, 'CARD_TRANSACTION.DECLINED', 'DECLINED', summaries([pulls, 0, 0]));
          expect(d.webhook.payload!.data).toMatchObject({ declineReason: reason, authorizedAmount: { amount: 0 } });
          expect(d.webhook.payload!.operation).toMatchObject({ kind: 'AUTHORIZATION', amount });
          const read = (await caller.req('GET', `/transactions/${d.id}`)).json();
          expect(read).toMatchObject({ status: 'DECLINED', declineReason: reason });
          expect(read.operations).toEqual([expect.objectContaining({ kind: 'AUTHORIZATION', status: 'REJECTED', reason: expect.stringMatching(new RegExp(`^${reason}: `)) })]);
          expect((await caller.req('POST', `/sandbox/cards/${cardId}/simulate/clearing`, { cardTransactionId: d.id, amount: 1 })).statusCode).toBe(409);
          await expectBalances(`declined ${reason} (${descriptor})`, false);
          expect(await balanceEventsSent(), `${descriptor}: no balance event`).toBe(sent);
        }
        // A frozen card declines CARD_PAUSED (the request is still accepted).
        await t.services.store.db.updateTable('cards').set({ state: 'FROZEN' }).where('id', '=', cardId).execute();
        const frozen = await step('authorization', { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'CORNER SHOP' } }, 'CARD_TRANSACTION.DECLINED', 'DECLINED', summaries([0, 0, 0]));
        expect(frozen.webhook.payload!.data).toMatchObject({ declineReason: 'CARD_PAUSED' });
        await t.services.store.db.updateTable('cards').set({ state: 'ACTIVE' }).where('id', '=', cardId).execute();
        await expectBalances('declined on a frozen card', false);

        // 005: approved, its pull confirmed later by a webhook of its own; then cleared.
        const slow = await step('authorization', { amount: 1_000, currency: { code: 'USD' }, merchant: { descriptor: 'SLOW BANK 005' } }, 'CARD_TRANSACTION.AUTHORIZED', 'AUTHORIZED', summaries([1, 1_000, 1]), true);
        model.available -= 1_000;
        await expectBalances('authorized 1000 with a delayed pull', true);
        const confirmed = await verifiedDelivery(
          (d) => (d.payload?.operation as { kind?: string })?.kind === 'PULL_CONFIRMATION' && (d.payload?.data as { id?: string })?.id === slow.id,
          'the pull confirmation',
        );
        expect(confirmed.payload).toMatchObject({ type: 'CARD_TRANSACTION.AUTHORIZED' });
        expect(summariesIn(confirmed.payload!.data as Record<string, unknown>)).toEqual(summaries([1, 1_000, 0]));
        expect(summariesIn(await readTransaction(slow.id)), 'the summaries read once the pull is confirmed').toEqual(summaries([1, 1_000, 0]));
        await step('clearing', { cardTransactionId: slow.id, amount: 1_000 }, 'CARD_TRANSACTION.SETTLED', 'SETTLED', summaries([1, 1_000, 0], [1, 1_000]));
        model.total -= 1_000;
        await expectBalances('cleared the delayed-pull authorization', true);

        // 006: approved, then EXCEPTION as its pull is reported failed; the amount stays held.
        const failed = await step('authorization', { amount: 700, currency: { code: 'USD' }, merchant: { descriptor: 'UBER EATS 006' } }, 'CARD_TRANSACTION.AUTHORIZED', 'AUTHORIZED', summaries([1, 700, 1]), true);
        const exception = await verifiedDelivery(
          (d) => d.payload?.type === 'CARD_TRANSACTION.EXCEPTION' && (d.payload?.data as { id?: string })?.id === failed.id,
          'the EXCEPTION',
        );
        expect(exception.payload).toMatchObject({ operation: { kind: 'PULL_FAILURE' }, data: { status: 'EXCEPTION' } });
        expect(summariesIn(exception.payload!.data as Record<string, unknown>)).toEqual(summaries([1, 0, 0]));
        expect(summariesIn(await readTransaction(failed.id)), 'the summaries read once the pull is reported failed').toEqual(summaries([1, 0, 0]));
        model.available -= 700;
        await expectBalances('an EXCEPTION keeps its hold', true);

        expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
        const statuses = (await caller.req('GET', `/transactions?cardId=${encodeURIComponent(cardId)}&limit=100`)).json().data.map((x: { status: string }) => x.status);
        expect(statuses.sort()).toEqual(['DECLINED', 'DECLINED', 'DECLINED', 'DECLINED', 'EXCEPTION', 'EXPIRED', 'EXPIRED', 'SETTLED', 'SETTLED'].sort());
      } finally {
        await worker.stop();
        await receiver.stop();
      }
    });
  },
  { SANDBOX_DELAYED_PULL_MS: String(DELAYED_PULL_MS), WEBHOOK_RETRY_SCHEDULE: '0.2,0.5,1' },
);
