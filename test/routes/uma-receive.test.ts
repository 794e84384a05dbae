import { beforeAll, expect, it } from 'vitest';
import { expectErrorObject } from '../helpers/error-object.js';
import { expectLedgerMatches, usdAccountOf } from '../helpers/money.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller, verifiedWebhooksOf } from '../helpers/webhook-receiver.js';

describeEachEngine(
  'incoming UMA payments (POST /sandbox/uma/receive): each sandbox sender, the approval path, the ledger after each step, verified webhooks',
  (t) => {
    const ctx = connectedCaller(t);
    let customerId: string;
    let umaAddress: string;
    let accountId: string;
    const model = { available: 0, total: 0 };

    beforeAll(async () => {
      const customer = await ctx.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'uma-receiver' });
      expect(customer.statusCode, customer.body).toBe(201);
      customerId = customer.json().id;
      umaAddress = customer.json().umaAddress;
      accountId = await usdAccountOf(ctx.caller, customerId);
    });

    const receive = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      ctx.caller.req('POST', '/sandbox/uma/receive', { receivingCurrencyCode: 'USD', receivingCurrencyAmount: 5_000, ...body }, headers);
    const received = async (body: Record<string, unknown>) => {
      const res = await receive(body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Record<string, any>;
    };
    const webhooks = (id: string, types: string[]) => verifiedWebhooksOf(ctx.receiver, id, types);
    const read = async (id: string) => (await ctx.caller.req('GET', `/transactions/${id}`)).json() as Record<string, any>;
    const expectBalances = async (step: string) => {
      const page = (await ctx.caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)).json();
      const account = page.data.find((a: { id: string }) => a.id === accountId);
      expect({ available: account.balance.amount, total: account.totalBalance.amount }, step).toEqual(model);
      await expectLedgerMatches(t.services.store.db, accountId, model, step);
    };
    const credit = (amount: number) => {
      model.available += amount;
      model.total += amount;
    };

    it('$success.usd to the customer\'s UMA address: PENDING, then credited and COMPLETED', async () => {
      const txn = await received({ senderUmaAddress: '$success.usd@sandbox.uma.money', receiverUmaAddress: umaAddress });
      expect(txn).toMatchObject({
        type: 'INCOMING',
        direction: 'CREDIT',
        status: 'PENDING',
        customerId,
        source: { sourceType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.uma.money', currency: 'USD' },
        destination: { destinationType: 'ACCOUNT', accountId, currency: 'USD' },
        receivedAmount: { amount: 5_000, currency: { code: 'USD' } },
      });
      const [, completed] = await webhooks(txn.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      expect(completed).toMatchObject({ status: 'COMPLETED' });
      expect(await read(txn.id)).toEqual(completed);
      credit(5_000);
      await expectBalances('after the payment');
    });

    it('by customerId, with an Idempotency-Key: one payment, the replay answers it again', async () => {
      const first = await receive({ senderUmaAddress: '$success.usd@sandbox.uma.money', customerId, receivingCurrencyAmount: 700 }, { 'Idempotency-Key': 'uma-receive-1' });
      expect(first.statusCode, first.body).toBe(200);
      const replay = await receive({ senderUmaAddress: '$success.usd@sandbox.uma.money', customerId, receivingCurrencyAmount: 700 }, { 'Idempotency-Key': 'uma-receive-1' });
      expect(replay.json()).toEqual(first.json());
      await webhooks(first.json().id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      credit(700);
      await expectBalances('after the idempotent payment');
    });

    it('$fail.compliance.usd: PENDING, then FAILED (COMPLIANCE_REJECTED), nothing credited', async () => {
      const txn = await received({ senderUmaAddress: '$fail.compliance.usd@sandbox.uma.money', receiverUmaAddress: umaAddress });
      const [, failed] = await webhooks(txn.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
      expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
      await expectBalances('after the compliance failure');
    });

    it('refuses what it cannot receive: a malformed or missing ctx.receiver (400), an unknown sender or ctx.receiver (404), a currency the customer does not hold (400)', async () => {
      const none = expectErrorObject(await receive({ senderUmaAddress: 'nobody' }), 'no receiver');
      expect((none.details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['senderUmaAddress', 'customerId']);
      expect(expectErrorObject(await receive({ senderUmaAddress: '$nobody@sandbox.uma.money', customerId }), 'unknown sender').code).toBe('UMA_NOT_FOUND');
      expect(expectErrorObject(await receive({ senderUmaAddress: '$success.usd@sandbox.uma.money', receiverUmaAddress: '$nobody@example.com' }), 'unknown receiver').code).toBe('UMA_NOT_FOUND');
      expect(expectErrorObject(await receive({ senderUmaAddress: '$success.usd@sandbox.uma.money', customerId, receivingCurrencyCode: 'MXN' }), 'no MXN account').code).toBe('INVALID_CURRENCY');
      await expectBalances('after the refusals');
    });

    it('with counterparty fields required for USD: the payment waits; one approved (credited), one rejected (COMPLIANCE_REJECTED); neither decided twice nor cancelled', async () => {
      const config = await ctx.caller.req('PATCH', '/config', {
        supportedCurrencies: [{ currencyCode: 'USD', minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }] }],
      });
      expect(config.statusCode, config.body).toBe(200);
      const toApprove = await received({ senderUmaAddress: '$success.usd@sandbox.uma.money', receiverUmaAddress: umaAddress, receivingCurrencyAmount: 1_200 });
      const toReject = await received({ senderUmaAddress: '$success.usd@sandbox.uma.money', receiverUmaAddress: umaAddress, receivingCurrencyAmount: 800 });
      await webhooks(toApprove.id, ['INCOMING_PAYMENT.PENDING']);
      await webhooks(toReject.id, ['INCOMING_PAYMENT.PENDING']);
      expect(expectErrorObject(await ctx.caller.req('POST', `/transactions/${toApprove.id}/cancel`), 'cancel an UMA payment').code).toBe('TRANSACTION_NOT_CANCELLABLE');

      const approved = await ctx.caller.req('POST', `/transactions/${toApprove.id}/approve`, {});
      expect(approved.statusCode, approved.body).toBe(200);
      expect(approved.json()).toMatchObject({ id: toApprove.id, status: 'COMPLETED' });
      await webhooks(toApprove.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      credit(1_200);
      await expectBalances('after the approval');

      const rejected = await ctx.caller.req('POST', `/transactions/${toReject.id}/reject`, { reason: 'screening' });
      expect(rejected.statusCode, rejected.body).toBe(200);
      expect(rejected.json()).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
      await webhooks(toReject.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
      await expectBalances('after the rejection');

      for (const [id, decision] of [[toApprove.id, 'approve'], [toReject.id, 'approve'], [toApprove.id, 'reject']] as const) {
        const again = expectErrorObject(await ctx.caller.req('POST', `/transactions/${id}/${decision}`, {}), `${decision} again`);
        expect(again).toMatchObject({ status: 409, code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL' });
      }
      await expectBalances('after the refused decisions');
      const restore = await ctx.caller.req('PATCH', '/config', { supportedCurrencies: [{ currencyCode: 'USD', minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [] }] });
      expect(restore.statusCode, restore.body).toBe(200);
    });

    it('$pending.long.usd stays PENDING until six minutes of the platform clock pass, then is credited', async () => {
      const txn = await received({ senderUmaAddress: '$pending.long.usd@sandbox.uma.money', receiverUmaAddress: umaAddress, receivingCurrencyAmount: 300 });
      await webhooks(txn.id, ['INCOMING_PAYMENT.PENDING']);
      expect((await ctx.caller.req('POST', '/sandbox/clock/advance', { seconds: 5 * 60 })).statusCode).toBe(200);
      expect((await read(txn.id)).status).toBe('PENDING');
      await expectBalances('while long pending');
      expect((await ctx.caller.req('POST', '/sandbox/clock/advance', { seconds: 61 })).statusCode).toBe(200);
      await webhooks(txn.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      credit(300);
      await expectBalances('after the long payment');
    });
  },
  // WORKER_ENABLED: a clock advance waits for the jobs it made due to land before answering.
  { WORKER_ENABLED: '1' },
);
