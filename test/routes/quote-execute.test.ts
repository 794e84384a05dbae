import { beforeAll, expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { eurAccount, ibanEndingIn } from '../helpers/external-accounts.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { expectLedgerMatches, usdAccountOf } from '../helpers/money.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller, verifiedWebhooksOf } from '../helpers/webhook-receiver.js';

const FUNDS = 1_000_000;
const FEE = { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 50, fixedFee: { amount: 100, currency: 'USD' } };

describeEachEngine(
  'quote execution: every sandbox suffix, the customer and fee accounts equal to their ledgers after each step, verified webhooks',
  (t) => {
    const ctx = connectedCaller(t);
    let customerId: string;
    let accountId: string;
    let feeAccountId: string;
    /** What each account's balances must be: the model each step moves. */
    const model = { customer: { available: 0, total: 0 }, fees: { available: 0, total: 0 } };
    const externals = new Map<string, string>();

    beforeAll(async () => {
      expect((await ctx.caller.req('PATCH', '/config', { feeConfigs: [FEE] })).statusCode).toBe(200);
      customerId = await insertTestCustomer(t, ctx.caller, 'INDIVIDUAL', 'APPROVED');
      accountId = await usdAccountOf(ctx.caller, customerId);
      expect((await ctx.caller.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: FUNDS })).statusCode).toBe(200);
      model.customer = { available: FUNDS, total: FUNDS };
      for (const suffix of ['000', '002', '003', '004', '005', '006', '007']) {
        const res = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...eurAccount(ibanEndingIn(suffix)) });
        expect(res.statusCode, res.body).toBe(201);
        externals.set(suffix, res.json().id);
      }
      const own = await ctx.caller.req('GET', '/platform/internal-accounts?currency=USD');
      expect(own.statusCode, own.body).toBe(200);
      feeAccountId = own.json().data[0].id;
    });

    const quoteTo = async (suffix: string, amount = 10_000) => {
      const res = await ctx.caller.req('POST', '/quotes', {
        source: { sourceType: 'ACCOUNT', accountId },
        destination: { destinationType: 'ACCOUNT', accountId: externals.get(suffix) },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: amount,
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as Record<string, any>;
    };
    const execute = (quoteId: string, headers: Record<string, string> = {}) => ctx.caller.req('POST', `/quotes/${encodeURIComponent(quoteId)}/execute`, undefined, headers);
    const executed = async (quote: Record<string, any>) => {
      const res = await execute(quote.id);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Record<string, any>;
    };
    const webhooks = (id: string, types: string[]) => verifiedWebhooksOf(ctx.receiver, id, types);
    const read = async (path: string) => (await ctx.caller.req('GET', path)).json() as Record<string, any>;
    const ledgerMatches = (id: string, expected: { available: number; total: number }, step: string) => expectLedgerMatches(t.services.store.db, id, expected, step);
    const expectBalances = async (step: string) => {
      const page = await read(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`);
      const account = page.data.find((a: { id: string }) => a.id === accountId);
      expect({ available: account.balance.amount, total: account.totalBalance.amount }, step).toEqual(model.customer);
      await ledgerMatches(accountId, model.customer, step);
      const own = (await read('/platform/internal-accounts?currency=USD')).data.find((a: { id: string }) => a.id === feeAccountId);
      expect({ available: own.balance.amount, total: own.totalBalance.amount }, `${step}: the platform's fee account`).toEqual(model.fees);
      await ledgerMatches(feeAccountId, model.fees, `${step}: the platform's fee account`);
    };
    const advance = async (seconds: number) => {
      const res = await ctx.caller.req('POST', '/sandbox/clock/advance', { seconds });
      expect(res.statusCode, res.body).toBe(200);
    };
    const debit = (amount: number, fee: number) => {
      model.customer.available -= amount;
      model.customer.total -= amount;
      model.fees.available += fee;
      model.fees.total += fee;
    };

    it('any other suffix: the quote PROCESSING, its transaction held then COMPLETED, the fee booked to the platform; a second execute is a 409', async () => {
      await expectBalances('before');
      const quote = await quoteTo('000');
      // 10000 sent: fee 100 + 50 bps of the 10000 = 150, all the platform's
      expect(quote).toMatchObject({ totalSendingAmount: 10_000, feesIncluded: 150, platformFeesIncluded: 150 });
      const after = await executed(quote);
      expect(after).toMatchObject({ id: quote.id, status: 'PROCESSING', transactionId: quote.transactionId });
      const [pending, completed] = await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect(pending).toMatchObject({
        id: quote.transactionId,
        status: 'PENDING',
        type: 'OUTGOING',
        quoteId: quote.id,
        customerId,
        source: { accountId, currency: 'USD' },
        destination: { accountId: externals.get('000'), currency: 'EUR' },
        sentAmount: { amount: 10_000, currency: { code: 'USD' } },
        receivedAmount: { amount: quote.totalReceivingAmount, currency: { code: 'EUR' } },
        exchangeRate: quote.exchangeRate,
        fees: 150,
        platformFees: 150,
      });
      expect(completed).toMatchObject({ status: 'COMPLETED' });
      expect(await read(`/transactions/${quote.transactionId}`)).toEqual(completed);
      expect((await read(`/quotes/${quote.id}`)).status).toBe('COMPLETED');
      debit(10_000, 150);
      await expectBalances('after the payment');

      const again = expectErrorObject(await execute(quote.id), 'executed twice');
      expect(again).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'COMPLETED' } });
      await expectBalances('after the refused second execute');
    });

    it('an Idempotency-Key replays the first answer and executes once', async () => {
      const quote = await quoteTo('000', 2_000);
      const first = await execute(quote.id, { 'Idempotency-Key': `exec-${quote.id}` });
      expect(first.statusCode, first.body).toBe(200);
      const replay = await execute(quote.id, { 'Idempotency-Key': `exec-${quote.id}` });
      expect(replay.statusCode).toBe(200);
      expect(replay.json()).toEqual(first.json());
      await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      debit(2_000, quote.platformFeesIncluded);
      await expectBalances('after the idempotent execute');
    });

    it('immediatelyExecute on POST /quotes: the quote created PROCESSING and its payment made in the same request', async () => {
      const res = await ctx.caller.req('POST', '/quotes', {
        source: { sourceType: 'ACCOUNT', accountId },
        destination: { destinationType: 'ACCOUNT', accountId: externals.get('000') },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_100,
        immediatelyExecute: true,
      });
      expect(res.statusCode, res.body).toBe(201);
      const quote = res.json();
      expect(quote.status).toBe('PROCESSING');
      await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect((await read(`/quotes/${quote.id}`)).status).toBe('COMPLETED');
      debit(1_100, quote.platformFeesIncluded);
      await expectBalances('after the immediate execution');
    });

    it('two executes at once: one pays, the other is a 409; the amount held and debited once', async () => {
      const quote = await quoteTo('000', 1_300);
      const answers = await Promise.all([execute(quote.id), execute(quote.id)]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
      await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      debit(1_300, quote.platformFeesIncluded);
      await expectBalances('after the concurrent executes');
    });

    it('002: execution fails at once, nothing held or booked', async () => {
      const quote = await quoteTo('002');
      expect(await executed(quote)).toMatchObject({ status: 'FAILED' });
      const [failed] = await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.FAILED']);
      expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
      expect(failed!.refund).toBeUndefined();
      expect((await read(`/quotes/${quote.id}`)).status).toBe('FAILED');
      await expectBalances('after 002');
    });

    it('004: delivery fails; the held amount is refunded and no fee is booked', async () => {
      const quote = await quoteTo('004');
      await executed(quote);
      const [, failed, refunded] = await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
      expect(failed).toMatchObject({ failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: { status: 'PENDING', reason: 'TRANSACTION_FAILED' } });
      expect(refunded).toMatchObject({ refund: { status: 'COMPLETED' } });
      await expectBalances('after 004');
    });

    it('005: completes, then the bank returns it: the amount credited back and the fee reversed', async () => {
      const quote = await quoteTo('005');
      await executed(quote);
      const [, completed, failed, refunded] = await webhooks(quote.transactionId, [
        'OUTGOING_PAYMENT.PENDING',
        'OUTGOING_PAYMENT.COMPLETED',
        'OUTGOING_PAYMENT.FAILED',
        'OUTGOING_PAYMENT.REFUND_COMPLETED',
      ]);
      expect(completed!.status).toBe('COMPLETED');
      expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'PAYOUT_RETURNED' });
      expect(refunded).toMatchObject({ refund: { status: 'COMPLETED' } });
      expect((await read(`/quotes/${quote.id}`)).status).toBe('FAILED');
      const kinds = (await entriesOf(t.services.store.db, feeAccountId)).filter((e) => e.payment_transaction_id === quote.transactionId).map((e) => e.kind);
      expect(kinds).toEqual(['PLATFORM_FEE_CREDIT', 'PLATFORM_FEE_REVERSAL']);
      await expectBalances('after 005');
    });

    it('006: cancelled by the user, refunded with USER_CANCELLATION', async () => {
      const quote = await quoteTo('006');
      await executed(quote);
      const [, failed] = await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
      expect(failed).toMatchObject({ refund: { reason: 'USER_CANCELLATION' } });
      await expectBalances('after 006');
    });

    it('007: payout and refund both fail: the amount leaves the account, REFUND_FAILED, no fee booked', async () => {
      const quote = await quoteTo('007', 3_000);
      await executed(quote);
      const [, failed, refundFailed] = await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_FAILED']);
      expect(failed).toMatchObject({ failureReason: 'QUOTE_EXECUTION_FAILED' });
      expect(refundFailed).toMatchObject({ refund: { status: 'FAILED' } });
      debit(3_000, 0);
      await expectBalances('after 007');
    });

    it('a balance below the sending amount fails the payment at once', async () => {
      const quote = await quoteTo('000', FUNDS * 5);
      expect(await executed(quote)).toMatchObject({ status: 'FAILED' });
      await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.FAILED']);
      await expectBalances('after the short payment');
    });

    it('real-time funding: POST /sandbox/send pays the instructions into the customer\'s account and executes the quote from there; execute and send refuse each other\'s quotes', async () => {
      const res = await ctx.caller.req('POST', '/quotes', {
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId },
        destination: { destinationType: 'ACCOUNT', accountId: externals.get('000') },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 6_000,
      });
      expect(res.statusCode, res.body).toBe(201);
      const quote = res.json();
      expect(quote.paymentInstructions.length).toBeGreaterThan(0);
      expect(expectErrorObject(await execute(quote.id), 'execute a real-time quote').status).toBe(400);
      const wrong = expectErrorObject(await ctx.caller.req('POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'EUR', currencyAmount: 5 }), 'wrong currency and amount');
      expect((wrong.details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['currencyCode', 'currencyAmount']);
      const prefunded = await quoteTo('000', 1_000);
      expect(expectErrorObject(await ctx.caller.req('POST', '/sandbox/send', { quoteId: prefunded.id, currencyCode: 'USD' }), 'send to a prefunded quote').status).toBe(400);
      await expectBalances('after the refusals');

      const sent = await ctx.caller.req('POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD', currencyAmount: 6_000 });
      expect(sent.statusCode, sent.body).toBe(200);
      expect(sent.json()).toMatchObject({ id: quote.transactionId, type: 'OUTGOING', status: 'PENDING', quoteId: quote.id, sentAmount: { amount: 6_000 }, source: { accountId } });
      await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect((await read(`/quotes/${quote.id}`)).status).toBe('COMPLETED');
      // Credited 6000 by the send, then 6000 held and debited: the customer's balance is back where it was.
      debit(0, quote.platformFeesIncluded);
      await expectBalances('after the real-time payment');
      const again = expectErrorObject(await ctx.caller.req('POST', '/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' }), 'send twice');
      expect(again).toMatchObject({ status: 409, details: { currentStatus: 'COMPLETED' } });
    });

    const quoteToUma = async (umaAddress: string, amount: number) => {
      const res = await ctx.caller.req('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId }, destination: { destinationType: 'UMA_ADDRESS', umaAddress }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as Record<string, any>;
    };

    it('the sandbox UMA addresses: $success.eur completes, $fail.compliance.usd fails (COMPLIANCE_REJECTED) and is refunded', async () => {
      const eur = await quoteToUma('$success.eur@sandbox.uma.money', 2_500);
      await executed(eur);
      const [pending] = await webhooks(eur.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect(pending).toMatchObject({ destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money', currency: 'EUR' }, receivedAmount: { currency: { code: 'EUR' } } });
      debit(2_500, eur.platformFeesIncluded);
      await expectBalances('after paying $success.eur');
      const compliance = await quoteToUma('$fail.compliance.usd@sandbox.uma.money', 1_500);
      await executed(compliance);
      const [, failed] = await webhooks(compliance.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
      expect(failed).toMatchObject({ failureReason: 'COMPLIANCE_REJECTED' });
      await expectBalances('after the compliance failure');
    });

    it('003 and $pending.long.usd: long payments stay PENDING (held) until six minutes of the platform clock pass, then complete', async () => {
      const quote = await quoteTo('003', 4_000);
      const uma = await quoteToUma('$pending.long.usd@sandbox.uma.money', 1_000);
      await executed(quote);
      await executed(uma);
      await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING']);
      await webhooks(uma.transactionId, ['OUTGOING_PAYMENT.PENDING']);
      model.customer.available -= 5_000;
      await expectBalances('003 held');
      await advance(5 * 60);
      expect((await read(`/transactions/${quote.transactionId}`)).status).toBe('PENDING');
      expect((await read(`/transactions/${uma.transactionId}`)).status).toBe('PENDING');
      await advance(61);
      await webhooks(quote.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      await webhooks(uma.transactionId, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      model.customer.available += 5_000;
      debit(4_000, quote.platformFeesIncluded);
      debit(1_000, uma.platformFeesIncluded);
      await expectBalances('after the long payments');
    });

    it('a quote past expiresAt is a 409 (currentStatus EXPIRED) and moves nothing; an unknown quote a 404', async () => {
      const quote = await quoteTo('000');
      await advance(5 * 60);
      const body = expectErrorObject(await execute(quote.id), 'expired');
      expect(body).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'EXPIRED' } });
      expect((await ctx.caller.req('GET', `/transactions/${quote.transactionId}`)).statusCode).toBe(404);
      await expectBalances('after the expired quote');
      const missing = expectErrorObject(await execute('Quote:00000000-0000-0000-0000-000000000000'), 'unknown');
      expect(missing).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });
    });
  },
  // WORKER_ENABLED: a clock advance waits for the jobs it made due to land before answering.
  { WORKER_ENABLED: '1' },
);
