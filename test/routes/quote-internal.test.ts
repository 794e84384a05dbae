import { beforeAll, expect, it } from 'vitest';
import { landTransfer } from '../../src/domain/payments/payment-lifecycle.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { expectLedgerMatches, usdAccountOf } from '../helpers/money.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller, verifiedWebhooksOf } from '../helpers/webhook-receiver.js';

const FUNDS = 1_000_000;
const FEE = { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 50, fixedFee: { amount: 100, currency: 'USD' } };
const currency = (code: string) => ({ currencyCode: code, minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [] });

type Balances = { available: number; total: number };

describeEachEngine(
  "quotes paid inside the platform: to an internal account and to a customer's UMA address, the recipient credited in the landing commit, every ledger balanced after each step",
  (t) => {
    const ctx = connectedCaller(t);
    let senderId: string;
    let senderUsd: string;
    let recipientId: string;
    let recipientUma: string;
    let recipientEur: string;
    let platformEur: string;
    let feeAccount: string;
    /** Each account's balances as the steps move them. */
    const model = new Map<string, Balances>();

    beforeAll(async () => {
      const config = await ctx.caller.req('PATCH', '/config', { feeConfigs: [FEE], supportedCurrencies: ['USD', 'EUR'].map(currency) });
      expect(config.statusCode, config.body).toBe(200);
      senderId = await insertTestCustomer(t, ctx.caller, 'INDIVIDUAL', 'APPROVED');
      senderUsd = await usdAccountOf(ctx.caller, senderId);
      expect((await ctx.caller.req('POST', `/sandbox/internal-accounts/${senderUsd}/fund`, { amount: FUNDS })).statusCode).toBe(200);
      const recipient = await ctx.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Rita Recipient', platformCustomerId: 'recipient-1', currencies: ['EUR'] });
      expect(recipient.statusCode, recipient.body).toBe(201);
      recipientId = recipient.json().id;
      recipientUma = recipient.json().umaAddress;
      recipientEur = (await ctx.caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(recipientId)}&currency=EUR`)).json().data[0].id;
      platformEur = (await ctx.caller.req('GET', '/platform/internal-accounts?currency=EUR')).json().data[0].id;
      feeAccount = (await ctx.caller.req('GET', '/platform/internal-accounts?currency=USD')).json().data[0].id;
      model.set(senderUsd, { available: FUNDS, total: FUNDS });
      for (const id of [recipientEur, platformEur, feeAccount]) model.set(id, { available: 0, total: 0 });
    });

    const move = (accountId: string, amount: number) => {
      const m = model.get(accountId)!;
      m.available += amount;
      m.total += amount;
    };
    const expectLedgers = async (step: string) => {
      for (const [accountId, expected] of model) await expectLedgerMatches(t.services.store.db, accountId, expected, `${step}: ${accountId}`);
      const eur = (await ctx.caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(recipientId)}&currency=EUR`)).json().data[0];
      expect({ available: eur.balance.amount, total: eur.totalBalance.amount }, `${step}: the recipient's EUR account as read`).toEqual(model.get(recipientEur));
    };
    const quote = (destination: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      ctx.caller.req('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: senderUsd }, destination, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000, ...extra });
    const created = async (destination: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const res = await quote(destination, extra);
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as Record<string, any>;
    };
    /** The recipient's IncomingTransaction of this quote: its one verified INCOMING_PAYMENT.COMPLETED naming the receiving account. */
    const incomingTo = async (accountId: string, reference: string) => {
      const mine = () =>
        ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === 'INCOMING_PAYMENT.COMPLETED' && (d.payload.data as any).reconciliationInstructions?.reference === `${reference}-IN`);
      await ctx.receiver.waitFor(() => mine().length > 0, 15_000);
      expect(mine()).toHaveLength(1);
      const data = mine()[0]!.payload!.data as Record<string, any>;
      expect(data.destination).toMatchObject({ destinationType: 'ACCOUNT', accountId });
      return data;
    };

    it("to the recipient customer's EUR internal account: the sender debited, the fee booked and the recipient credited with an IncomingTransaction, once", async () => {
      await expectLedgers('before');
      const q = await created({ destinationType: 'ACCOUNT', accountId: recipientEur });
      expect(q.receivingCurrency.code).toBe('EUR');
      const executed = await ctx.caller.req('POST', `/quotes/${q.id}/execute`);
      expect(executed.statusCode, executed.body).toBe(200);
      expect(executed.json().status).toBe('PROCESSING');
      const [pending, completed] = await verifiedWebhooksOf(ctx.receiver, q.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect(pending).toMatchObject({ type: 'OUTGOING', destination: { destinationType: 'ACCOUNT', accountId: recipientEur, currency: 'EUR' }, receivedAmount: { amount: q.totalReceivingAmount } });
      expect(completed!.status).toBe('COMPLETED');
      const incoming = await incomingTo(recipientEur, completed!.reconciliationInstructions.reference);
      expect(incoming).toMatchObject({
        type: 'INCOMING',
        direction: 'CREDIT',
        status: 'COMPLETED',
        customerId: recipientId,
        platformCustomerId: 'recipient-1',
        source: { sourceType: 'ACCOUNT', accountId: senderUsd },
        receivedAmount: { amount: q.totalReceivingAmount, currency: { code: 'EUR' } },
      });
      expect((await ctx.caller.req('GET', `/transactions/${incoming.id}`)).json()).toEqual(incoming);
      expect((await ctx.caller.req('GET', `/quotes/${q.id}`)).json().status).toBe('COMPLETED');
      move(senderUsd, -q.totalSendingAmount);
      move(feeAccount, q.platformFeesIncluded);
      move(recipientEur, q.totalReceivingAmount);
      await expectLedgers('after the payment');

      // The settlement job run again (a retry after its commit): nothing moves twice.
      await t.services.store.transaction((uow) => landTransfer(uow, { platformId: ctx.caller.platformId, transactionId: q.transactionId }, Date.now()));
      await expectLedgers('after the landing ran again');
    });

    it("to the recipient's UMA address in EUR, executed at once: the same credit, the payment naming the address", async () => {
      const lookup = await ctx.caller.req('GET', `/receiver/uma/${encodeURIComponent(recipientUma)}`);
      expect(lookup.statusCode, lookup.body).toBe(200);
      // What the lookup offers is what a quote to the address may receive: the currencies it holds an account in, its own first.
      expect(lookup.json().supportedCurrencies.map((c: any) => c.currency.code)).toEqual(['EUR', 'USD']);
      const q = await created({ destinationType: 'UMA_ADDRESS', umaAddress: recipientUma }, { immediatelyExecute: true });
      expect(q).toMatchObject({ status: 'PROCESSING', receivingCurrency: { code: 'EUR' } });
      const [pending, completed] = await verifiedWebhooksOf(ctx.receiver, q.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect(pending!.destination).toEqual({ destinationType: 'UMA_ADDRESS', umaAddress: recipientUma, currency: 'EUR' });
      const incoming = await incomingTo(recipientEur, completed!.reconciliationInstructions.reference);
      expect(incoming).toMatchObject({ status: 'COMPLETED', customerId: recipientId, receivedAmount: { amount: q.totalReceivingAmount, currency: { code: 'EUR' } } });
      move(senderUsd, -q.totalSendingAmount);
      move(feeAccount, q.platformFeesIncluded);
      move(recipientEur, q.totalReceivingAmount);
      await expectLedgers('after the UMA payment');

      const usd = await created({ destinationType: 'UMA_ADDRESS', umaAddress: recipientUma, currency: 'USD' }, { lockedCurrencyAmount: 5_000 });
      expect(usd.receivingCurrency.code).toBe('USD');
    });

    it("to the platform's own EUR account: credited, its ledger balanced", async () => {
      const q = await created({ destinationType: 'ACCOUNT', accountId: platformEur }, { immediatelyExecute: true });
      const [, completed] = await verifiedWebhooksOf(ctx.receiver, q.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      const incoming = await incomingTo(platformEur, completed!.reconciliationInstructions.reference);
      expect(incoming).toMatchObject({ status: 'COMPLETED', customerId: ctx.caller.platformId });
      move(senderUsd, -q.totalSendingAmount);
      move(feeAccount, q.platformFeesIncluded);
      move(platformEur, q.totalReceivingAmount);
      await expectLedgers("after the payment to the platform's account");
      const own = (await ctx.caller.req('GET', '/platform/internal-accounts?currency=EUR')).json().data[0];
      expect(own.balance.amount).toBe(model.get(platformEur)!.available);
    });

    it('real-time funded through POST /sandbox/send: the funds land on the sender and pay the recipient in the same way', async () => {
      const q = await created({ destinationType: 'ACCOUNT', accountId: recipientEur }, { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: senderId } });
      const sent = await ctx.caller.req('POST', '/sandbox/send', { quoteId: q.id, currencyCode: 'USD', currencyAmount: q.totalSendingAmount });
      expect(sent.statusCode, sent.body).toBe(200);
      const [, completed] = await verifiedWebhooksOf(ctx.receiver, q.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      const incoming = await incomingTo(recipientEur, completed!.reconciliationInstructions.reference);
      expect(incoming).toMatchObject({ status: 'COMPLETED', customerId: recipientId, receivedAmount: { amount: q.totalReceivingAmount } });
      // Credited by the funds, then debited by the payment: the sender's account ends where it was.
      move(feeAccount, q.platformFeesIncluded);
      move(recipientEur, q.totalReceivingAmount);
      await expectLedgers('after the real-time funded payment');
    });

    it("refuses the source itself, and another platform's account or address as one that does not exist; nothing moves", async () => {
      const self = expectErrorObject(await quote({ destinationType: 'ACCOUNT', accountId: senderUsd }), 'the source itself');
      expect(self).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      expect((self.details!.errors as any[]).map((e) => e.field)).toEqual(['destination.accountId']);

      const other = await t.newCaller();
      const stranger = await other.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Stranger' });
      const strangerUsd = await usdAccountOf(other, stranger.json().id);
      const foreign = expectErrorObject(await quote({ destinationType: 'ACCOUNT', accountId: strangerUsd }), 'foreign account');
      const unknown = expectErrorObject(await quote({ destinationType: 'ACCOUNT', accountId: 'InternalAccount:0194f5b3-0000-7000-8000-000000000000' }), 'unknown account');
      expect(foreign).toEqual({ ...unknown, message: foreign.message, details: foreign.details });
      expect((foreign.details!.errors as any[]).map((e) => e.field)).toEqual(['destination.accountId']);

      const foreignUma = expectErrorObject(await quote({ destinationType: 'UMA_ADDRESS', umaAddress: stranger.json().umaAddress }), 'foreign UMA address');
      const unknownUma = expectErrorObject(await quote({ destinationType: 'UMA_ADDRESS', umaAddress: '$nobody@example.com' }), 'unknown UMA address');
      expect(foreignUma).toMatchObject({ status: 404, code: 'UMA_NOT_FOUND' });
      expect(unknownUma).toMatchObject({ status: 404, code: 'UMA_NOT_FOUND' });
      expect(expectErrorObject(await ctx.caller.req('GET', `/receiver/uma/${encodeURIComponent(stranger.json().umaAddress)}`), 'foreign lookup').code).toBe('UMA_NOT_FOUND');
      await expectLedgers('after the refusals');
    });
  },
);
