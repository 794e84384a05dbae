import { afterAll, beforeAll, expect, it } from 'vitest';
import { isHoldKind } from '../../src/domain/accounts/ledger.js';
import { startWorker } from '../../src/jobs/index.js';
import type { Worker } from '../../src/jobs/worker.js';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { usdAccountOf } from '../helpers/money.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { connectReceiver, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describeEachEngine(
  'incoming UMA payments (POST /sandbox/uma/receive): each sandbox sender, the approval path, the ledger after each step, verified webhooks',
  (t) => {
    let receiver: WebhookReceiver;
    let worker: Worker;
    let caller: Caller;
    let customerId: string;
    let umaAddress: string;
    let accountId: string;
    const model = { available: 0, total: 0 };

    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      caller = await t.newCaller();
      await connectReceiver(caller, receiver);
      worker = startWorker(t.services, t.app.log);
      const customer = await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'uma-receiver' });
      expect(customer.statusCode, customer.body).toBe(201);
      customerId = customer.json().id;
      umaAddress = customer.json().umaAddress;
      accountId = await usdAccountOf(caller, customerId);
    });
    afterAll(async () => {
      await worker?.stop();
      await receiver?.stop();
    });

    const receive = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      caller.req('POST', '/sandbox/uma/receive', { receivingCurrencyCode: 'USD', receivingCurrencyAmount: 5_000, ...body }, headers);
    const received = async (body: Record<string, unknown>) => {
      const res = await receive(body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Record<string, any>;
    };
    const eventsOf = (id: string) => receiver.verifiedUnique().filter((d) => (d.payload?.data as { id?: string } | undefined)?.id === id);
    const webhooks = async (id: string, types: string[]) => {
      await receiver.waitFor(() => eventsOf(id).length >= types.length, 15_000);
      const events = eventsOf(id);
      expect(events.map((e) => e.payload!.type)).toEqual(types);
      for (const e of events) expect(e.verified).toBe(true);
      return events.map((e) => e.payload!.data as Record<string, any>);
    };
    const read = async (id: string) => (await caller.req('GET', `/transactions/${id}`)).json() as Record<string, any>;
    const expectBalances = async (step: string) => {
      const page = (await caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)).json();
      const account = page.data.find((a: { id: string }) => a.id === accountId);
      expect({ available: account.balance.amount, total: account.totalBalance.amount }, step).toEqual(model);
      const entries = await entriesOf(t.services.store.db, accountId);
      expect(entries.reduce((s, e) => s + Number(e.amount), 0), `${step}: available = sum of the entries`).toBe(model.available);
      expect(entries.filter((e) => !isHoldKind(e.kind)).reduce((s, e) => s + Number(e.amount), 0), `${step}: total = sum of the non-hold entries`).toBe(model.total);
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

    it('refuses what it cannot receive: a malformed or missing receiver (400), an unknown sender or receiver (404), a currency the customer does not hold (400)', async () => {
      const none = expectErrorObject(await receive({ senderUmaAddress: 'nobody' }), 'no receiver');
      expect((none.details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['senderUmaAddress', 'customerId']);
      expect(expectErrorObject(await receive({ senderUmaAddress: '$nobody@sandbox.uma.money', customerId }), 'unknown sender').code).toBe('UMA_NOT_FOUND');
      expect(expectErrorObject(await receive({ senderUmaAddress: '$success.usd@sandbox.uma.money', receiverUmaAddress: '$nobody@example.com' }), 'unknown receiver').code).toBe('UMA_NOT_FOUND');
      expect(expectErrorObject(await receive({ senderUmaAddress: '$success.usd@sandbox.uma.money', customerId, receivingCurrencyCode: 'MXN' }), 'no MXN account').code).toBe('INVALID_CURRENCY');
      await expectBalances('after the refusals');
    });

    it('with counterparty fields required for USD: the payment waits; one approved (credited), one rejected (COMPLIANCE_REJECTED); neither decided twice nor cancelled', async () => {
      const config = await caller.req('PATCH', '/config', {
        supportedCurrencies: [{ currencyCode: 'USD', minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }] }],
      });
      expect(config.statusCode, config.body).toBe(200);
      const toApprove = await received({ senderUmaAddress: '$success.usd@sandbox.uma.money', receiverUmaAddress: umaAddress, receivingCurrencyAmount: 1_200 });
      const toReject = await received({ senderUmaAddress: '$success.usd@sandbox.uma.money', receiverUmaAddress: umaAddress, receivingCurrencyAmount: 800 });
      await webhooks(toApprove.id, ['INCOMING_PAYMENT.PENDING']);
      await webhooks(toReject.id, ['INCOMING_PAYMENT.PENDING']);
      expect(expectErrorObject(await caller.req('POST', `/transactions/${toApprove.id}/cancel`), 'cancel an UMA payment').code).toBe('TRANSACTION_NOT_CANCELLABLE');

      const approved = await caller.req('POST', `/transactions/${toApprove.id}/approve`, {});
      expect(approved.statusCode, approved.body).toBe(200);
      expect(approved.json()).toMatchObject({ id: toApprove.id, status: 'COMPLETED' });
      await webhooks(toApprove.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      credit(1_200);
      await expectBalances('after the approval');

      const rejected = await caller.req('POST', `/transactions/${toReject.id}/reject`, { reason: 'screening' });
      expect(rejected.statusCode, rejected.body).toBe(200);
      expect(rejected.json()).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
      await webhooks(toReject.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
      await expectBalances('after the rejection');

      for (const [id, decision] of [[toApprove.id, 'approve'], [toReject.id, 'approve'], [toApprove.id, 'reject']] as const) {
        const again = expectErrorObject(await caller.req('POST', `/transactions/${id}/${decision}`, {}), `${decision} again`);
        expect(again).toMatchObject({ status: 409, code: 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL' });
      }
      await expectBalances('after the refused decisions');
      const restore = await caller.req('PATCH', '/config', { supportedCurrencies: [{ currencyCode: 'USD', minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [] }] });
      expect(restore.statusCode, restore.body).toBe(200);
    });

    it('$pending.long.usd stays PENDING until six minutes of the platform clock pass, then is credited', async () => {
      const txn = await received({ senderUmaAddress: '$pending.long.usd@sandbox.uma.money', receiverUmaAddress: umaAddress, receivingCurrencyAmount: 300 });
      await webhooks(txn.id, ['INCOMING_PAYMENT.PENDING']);
      expect((await caller.req('POST', '/sandbox/clock/advance', { seconds: 5 * 60 })).statusCode).toBe(200);
      expect((await read(txn.id)).status).toBe('PENDING');
      await expectBalances('while long pending');
      expect((await caller.req('POST', '/sandbox/clock/advance', { seconds: 61 })).statusCode).toBe(200);
      await webhooks(txn.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      credit(300);
      await expectBalances('after the long payment');
    });
  },
  // WORKER_ENABLED: a clock advance waits for the jobs it made due to land before answering.
  { WORKER_ENABLED: '1' },
);
