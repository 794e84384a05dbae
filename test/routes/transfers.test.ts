import pg from 'pg';
import { beforeAll, expect, it, vi } from 'vitest';
import { BALANCE_UPDATED_EVENT } from '../../src/domain/accounts/internal-accounts.js';
import { isHoldKind } from '../../src/domain/accounts/ledger.js';
import { landTransfer } from '../../src/domain/payments/payment-lifecycle.js';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { eurAccount, ibanEndingIn, usdAccount } from '../helpers/external-accounts.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { expectLedgerMatches, usdAccountOf } from '../helpers/money.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller, verifiedWebhooksOf } from '../helpers/webhook-receiver.js';

const FUNDS = 100_000;

describeEachEngine(
  'transfers in and out: every sandbox suffix, the ledger after each step, verified webhooks',
  (t) => {
    const ctx = connectedCaller(t);
    let customerId: string;
    let accountId: string;
    /** What the account's balances must be: the model each step moves. */
    const model = { available: 0, total: 0 };
    const externals = new Map<string, string>();

    beforeAll(async () => {
      customerId = await insertTestCustomer(t, ctx.caller, 'INDIVIDUAL', 'APPROVED');
      accountId = await usdAccountOf(ctx.caller, customerId);
      expect((await ctx.caller.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: FUNDS })).statusCode).toBe(200);
      model.available = FUNDS;
      model.total = FUNDS;
      for (const suffix of ['000', '002', '003', '004', '005', '006']) {
        const res = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount(`123456789${suffix}`) });
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().status).toBe('ACTIVE');
        externals.set(suffix, res.json().id);
      }
    });

    const out = (suffix: string, amount: number, extra: Record<string, unknown> = {}) =>
      ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: externals.get(suffix) }, amount, ...extra });
    const into = (suffix: string, amount: number) => ctx.caller.req('POST', '/transfer-in', { source: { accountId: externals.get(suffix) }, destination: { accountId }, amount });
    const created = (res: { statusCode: number; body: string; json(): any }) => {
      expect(res.statusCode, res.body).toBe(201);
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
    const balanceEvents = () => t.services.store.db.selectFrom('webhook_events').select(['id', 'body']).where('type', '=', BALANCE_UPDATED_EVENT).execute();
    const advance = async (seconds: number) => {
      const res = await ctx.caller.req('POST', '/sandbox/clock/advance', { seconds });
      expect(res.statusCode, res.body).toBe(200);
    };

    it('transfer-in (any other suffix): PENDING, then COMPLETED with the account credited', async () => {
      const txn = created(await into('000', 2_500));
      expect(txn).toMatchObject({
        type: 'INCOMING',
        direction: 'CREDIT',
        status: 'PENDING',
        customerId,
        source: { sourceType: 'ACCOUNT', accountId: externals.get('000'), currency: 'USD' },
        destination: { destinationType: 'ACCOUNT', accountId, currency: 'USD' },
        receivedAmount: { amount: 2_500, currency: { code: 'USD' } },
        sentAmount: { amount: 2_500 },
      });
      expect(typeof txn.platformCustomerId).toBe('string');
      expect(txn.id).toMatch(/^Transaction:/);
      const [pending, completed] = await webhooks(txn.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      expect(pending!.status).toBe('PENDING');
      expect(completed).toMatchObject({ id: txn.id, status: 'COMPLETED', type: 'INCOMING' });
      expect(typeof completed!.settledAt).toBe('string');
      expect(await read(txn.id)).toEqual(completed);
      model.available += 2_500;
      model.total += 2_500;
      await expectBalances('after the transfer-in');
    });

    it('transfer-out (any other suffix): PENDING, then COMPLETED with the amount debited; the rail chosen or as asked', async () => {
      const txn = created(await out('000', 1_000, { remittanceInformation: 'INV-1' }));
      expect(txn).toMatchObject({ type: 'OUTGOING', direction: 'DEBIT', status: 'PENDING', paymentRail: 'ACH', railSelectionMode: 'AUTO', description: 'INV-1', platformFees: 0 });
      const [, completed] = await webhooks(txn.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect(completed).toMatchObject({ status: 'COMPLETED', sentAmount: { amount: 1_000 } });
      model.available -= 1_000;
      model.total -= 1_000;
      await expectBalances('after the transfer-out');

      const wire = created(await ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: externals.get('000'), paymentRail: 'WIRE' }, amount: 10 }));
      expect(wire).toMatchObject({ paymentRail: 'WIRE', railSelectionMode: 'MANUAL' });
      await webhooks(wire.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      model.available -= 10;
      model.total -= 10;
      await expectBalances('after the wire');
    });

    it('lands once: a settlement job that runs again (a crash before it was marked done) changes nothing; an Idempotency-Key replays the 201', async () => {
      const headers = { 'idempotency-key': `transfer-${t.engine}` };
      const first = await ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: externals.get('000') }, amount: 250 }, headers);
      const txn = created(first);
      await webhooks(txn.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      const replay = await ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: externals.get('000') }, amount: 250 }, headers);
      expect(replay.statusCode).toBe(201);
      expect(replay.json()).toEqual(txn);
      model.available -= 250;
      model.total -= 250;
      await expectBalances('after the keyed transfer-out');
      const entries = (await entriesOf(t.services.store.db, accountId)).length;
      const eventCount = async () => (await t.services.store.db.selectFrom('webhook_events').select('id').where('platform_id', '=', ctx.caller.platformId).execute()).length;
      const events = await eventCount();
      await t.services.store.transaction((uow) => landTransfer(uow, { platformId: ctx.caller.platformId, transactionId: txn.id }, Date.now()));
      expect((await entriesOf(t.services.store.db, accountId)).length).toBe(entries);
      expect(await eventCount()).toBe(events);
      await expectBalances('after the settlement ran again');
      const ours = (await ctx.caller.req('GET', `/transactions?customerId=${encodeURIComponent(customerId)}&type=OUTGOING&status=COMPLETED&limit=100`)).json();
      expect(ours.data.filter((d: { sentAmount: { amount: number } }) => d.sentAmount.amount === 250)).toHaveLength(1);
    });

    it('002 and 003 fail at once: 201 with a FAILED transaction and its webhook, nothing held or moved', async () => {
      for (const [suffix, reason] of [['002', 'QUOTE_EXECUTION_FAILED'], ['003', 'ACCOUNT_INVALID']] as const) {
        const txn = created(await out(suffix, 500));
        expect(txn).toMatchObject({ status: 'FAILED', failureReason: reason });
        expect(txn.refund).toBeUndefined();
        const [failed] = await webhooks(txn.id, ['OUTGOING_PAYMENT.FAILED']);
        expect(failed).toEqual(txn);
        const incoming = created(await into(suffix, 500));
        expect(incoming).toMatchObject({ status: 'FAILED', failureReason: 'COLLECTION_FAILED' });
        await webhooks(incoming.id, ['INCOMING_PAYMENT.FAILED']);
        await expectBalances(`after ${suffix}`);
      }
    });

    it('004 is rejected by the bank: PENDING, then FAILED; the held amount comes back as a completed refund', async () => {
      const txn = created(await out('004', 700));
      expect(txn.status).toBe('PENDING');
      const [, failed, refunded] = await webhooks(txn.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
      expect(failed).toMatchObject({ status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE', refund: { status: 'PENDING', reason: 'TRANSACTION_FAILED' } });
      expect(refunded).toMatchObject({ status: 'FAILED', refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } });
      expect(await read(txn.id)).toEqual(refunded);
      await expectBalances('after 004 out');
      const incoming = created(await into('004', 700));
      expect(incoming.status).toBe('PENDING');
      const [, inFailed] = await webhooks(incoming.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
      expect(inFailed).toMatchObject({ status: 'FAILED', failureReason: 'COLLECTION_FAILED' });
      await expectBalances('after 004 in');
    });

    it('005 stays PENDING (the amount held) until 30 s of the platform clock pass, then fails with a TIMEOUT refund', async () => {
      const txn = created(await out('005', 900));
      const incoming = created(await into('005', 900));
      model.available -= 900;
      await expectBalances('005 held');
      await advance(20);
      expect((await read(txn.id)).status).toBe('PENDING');
      expect((await read(incoming.id)).status).toBe('PENDING');
      await expectBalances('005 still held after 20 s');
      await advance(11);
      const [, failed] = await webhooks(txn.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
      expect(failed).toMatchObject({ failureReason: 'QUOTE_EXECUTION_FAILED', refund: { reason: 'TIMEOUT' } });
      await webhooks(incoming.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
      model.available += 900;
      await expectBalances('005 released');
    });

    it('a transfer-out above the available balance is a FAILED transaction that holds nothing', async () => {
      const txn = created(await out('000', model.available + 1));
      expect(txn).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
      await webhooks(txn.id, ['OUTGOING_PAYMENT.FAILED']);
      await expectBalances('after the refused transfer-out');
    });

    it("a transfer-out's hold: INTERNAL_ACCOUNT.BALANCE_UPDATED has the balances it left; on PostgreSQL it goes out with COMMIT", async () => {
      const earlier = new Set((await balanceEvents()).map((e) => e.id));
      const queries = vi.spyOn(pg.Client.prototype, 'query');
      let txn: Record<string, any>;
      let calls: { text: string; client: unknown }[];
      try {
        txn = created(await out('000', 700));
        calls = queries.mock.calls.map(([q], i) => ({ text: String(typeof q === 'string' ? q : (q as { text: string }).text), client: queries.mock.contexts[i] }));
      } finally {
        queries.mockRestore();
      }
      if (t.engine === 'postgres') {
        // The account's row is locked by the hold alone, in the transaction's last round trip, with COMMIT, right after
        // its one read (the accounts and the customer, with BEGIN), on its connection; this file's worker may use others.
        const holds = calls.filter((c) => /internal_accounts"? set available_balance/.test(c.text));
        expect(holds).toHaveLength(1);
        expect(holds[0]!.text).toMatch(/payments_refuse_hold[\s\S]*commit$/);
        const mine = calls.filter((c) => c.client === holds[0]!.client);
        const at = mine.indexOf(holds[0]!);
        expect(mine[at - 1]?.text).toMatch(/^begin;\s*select\s+\(select row_to_json/);
      } else {
        expect(calls).toEqual([]);
      }
      const held = { available: model.available - 700, total: model.total };
      const bodies = (await balanceEvents()).map((e) => JSON.parse(e.body));
      // The hold's, and perhaps already the settlement's.
      const mine = bodies.filter((b) => !earlier.has(b.id) && b.data.id === accountId && b.data.balance.amount === held.available && b.data.totalBalance.amount === held.total);
      expect(mine).toHaveLength(1);
      expect(mine[0].data).toMatchObject({ balance: { currency: { code: 'USD' } }, totalBalance: { currency: { code: 'USD' } }, status: 'ACTIVE' });
      expect(bodies.filter((b) => JSON.stringify(b).includes('@available:') || JSON.stringify(b).includes('@total:'))).toEqual([]);
      await webhooks(txn.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      model.available -= 700;
      model.total -= 700;
      await expectBalances('after the held transfer-out');
    });

    it('a transfer-out the balance covered when read but no longer covers at its commit is FAILED, with nothing of its first try written', async () => {
      const before = await t.services.store.db.selectFrom('payment_transactions').select('id').where('internal_account_id', '=', accountId).execute();
      const drain = model.available - 100;
      // Another transfer-out (an Idempotency-Key: its hold decided at once) takes all but 100 of the balance: on PostgreSQL
      // just before this one's COMMIT goes out with its hold, on SQLite (holds decided at once) before it starts.
      const other = () => ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: externals.get('000') }, amount: drain }, { 'idempotency-key': `drain-${t.engine}` });
      let drained: Promise<{ statusCode: number; body: string; json(): any }> | undefined;
      const original = pg.Client.prototype.query;
      const queries = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
        const q = args[0] as string | { text?: string };
        const text = typeof q === 'string' ? q : q.text;
        if (drained === undefined && text?.includes('payments_refuse_hold')) {
          drained = other();
          return drained.then(() => (original as (...a: unknown[]) => unknown).apply(this, args));
        }
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as never);
      let txn: Record<string, any>;
      try {
        if (t.engine === 'sqlite') drained = other();
        await drained;
        txn = created(await out('000', 500));
      } finally {
        queries.mockRestore();
      }
      const drainTxn = created((await drained)!);
      expect(drainTxn.status).toBe('PENDING');
      expect(txn).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
      const after = await t.services.store.db.selectFrom('payment_transactions').select('id').where('internal_account_id', '=', accountId).execute();
      expect(after.map((r) => r.id).sort()).toEqual([...before.map((r) => r.id), drainTxn.id, txn.id].sort());
      await webhooks(txn.id, ['OUTGOING_PAYMENT.FAILED']);
      await webhooks(drainTxn.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      model.available -= drain;
      model.total -= drain;
      await expectBalances('after the refused hold');
      // Funded again for the steps after.
      expect((await ctx.caller.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: drain })).statusCode).toBe(200);
      model.available += drain;
      model.total += drain;
      await expectBalances('funded again');
    });

    it('cancel: a PENDING transfer ends FAILED with its hold refunded; then 409; approve and reject are 409; confirm records the receipt', async () => {
      const txn = created(await out('005', 300));
      model.available -= 300;
      await expectBalances('held before the cancel');
      const cancelled = await ctx.caller.req('POST', `/transactions/${txn.id}/cancel`, { reason: 'REQUESTED_AFTER_HOURS' });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect(cancelled.json()).toMatchObject({ status: 'FAILED', refund: { status: 'COMPLETED', reason: 'USER_CANCELLATION' } });
      model.available += 300;
      await expectBalances('after the cancel');
      await webhooks(txn.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_COMPLETED']);
      // The settlement job, due later, finds it no longer PENDING.
      await advance(31);
      expect(await read(txn.id)).toEqual(cancelled.json());
      await expectBalances('after the due settlement of a cancelled transfer');

      expectErrorObject(await ctx.caller.req('POST', `/transactions/${txn.id}/cancel`, {}), 'TRANSACTION_NOT_CANCELLABLE');
      expectErrorObject(await ctx.caller.req('POST', `/transactions/${txn.id}/approve`, {}), 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
      expectErrorObject(await ctx.caller.req('POST', `/transactions/${txn.id}/reject`, { reason: 'NO' }), 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
      expectErrorObject(await ctx.caller.req('POST', '/transactions/Transaction:unknown/cancel', {}), 'TRANSACTION_NOT_FOUND');
      expectErrorObject(await ctx.caller.req('POST', '/transactions/Transaction:unknown/approve', {}), 'TRANSACTION_NOT_FOUND');

      const confirmed = await ctx.caller.req('POST', `/transactions/${txn.id}/confirm`, { receiptDeliveryConfirmedAt: '2026-01-02T03:04:05.000Z' });
      expect(confirmed.statusCode, confirmed.body).toBe(200);
      expect(confirmed.json().receiptDeliveryConfirmedAt).toBe('2026-01-02T03:04:05.000Z');
      const now = await ctx.caller.req('POST', `/transactions/${txn.id}/confirm`);
      expect(now.statusCode, now.body).toBe(200);
      expect(Date.parse(now.json().receiptDeliveryConfirmedAt)).toBeGreaterThan(Date.parse('2026-01-02T03:04:05.000Z'));
    });

    it("another customer's, another platform's, a deleted or a missing external account are one and the same 404", async () => {
      const other = await insertTestCustomer(t, ctx.caller, 'INDIVIDUAL', 'APPROVED');
      const theirs = (await ctx.caller.req('POST', '/customers/external-accounts', { customerId: other, ...usdAccount('555555555000') })).json().id;
      const elsewhere = await t.newCaller();
      const otherPlatformCustomer = await insertTestCustomer(t, elsewhere, 'INDIVIDUAL', 'APPROVED');
      const foreign = (await elsewhere.req('POST', '/customers/external-accounts', { customerId: otherPlatformCustomer, ...usdAccount('555555555001') })).json().id;
      const gone = (await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('555555555007') })).json().id;
      expect((await ctx.caller.req('DELETE', `/customers/external-accounts/${gone}`)).statusCode).toBe(204);
      const production = await t.newCaller('production', ctx.caller);
      const prodCustomer = await insertTestCustomer(t, production, 'INDIVIDUAL', 'APPROVED');
      const prodAccount = (await production.req('POST', '/customers/external-accounts', { customerId: prodCustomer, ...usdAccount('555555555008') })).json().id;
      for (const id of [theirs, foreign, gone, prodAccount, 'ExternalAccount:missing']) {
        const res = await ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: id }, amount: 1 });
        expectErrorObject(res, 'REFERENCE_NOT_FOUND');
        expect(res.json().message).toBe(`ExternalAccount ${id} was not found`);
        expectErrorObject(await ctx.caller.req('POST', '/transfer-in', { source: { accountId: id }, destination: { accountId }, amount: 1 }), 'REFERENCE_NOT_FOUND');
      }
      await expectBalances('after the refused transfers');
    });

    it("the platform's own accounts move money the same way; the platform's id as customerId lists those transfers", async () => {
      const own = (await ctx.caller.req('GET', '/platform/internal-accounts?currency=USD')).json().data[0].id as string;
      expect((await ctx.caller.req('POST', `/sandbox/internal-accounts/${own}/fund`, { amount: 5_000 })).statusCode).toBe(200);
      const bank = created(await ctx.caller.req('POST', '/platform/external-accounts', usdAccount('333333333000'))).id as string;
      const balances = async () => {
        const account = (await ctx.caller.req('GET', '/platform/internal-accounts?currency=USD')).json().data[0];
        const entries = await entriesOf(t.services.store.db, own);
        expect(entries.reduce((s, e) => s + Number(e.amount), 0)).toBe(account.balance.amount);
        expect(entries.filter((e) => !isHoldKind(e.kind)).reduce((s, e) => s + Number(e.amount), 0)).toBe(account.totalBalance.amount);
        return { available: account.balance.amount, total: account.totalBalance.amount };
      };
      const pulled = created(await ctx.caller.req('POST', '/transfer-in', { source: { accountId: bank }, destination: { accountId: own }, amount: 1_000 }));
      expect(pulled).toMatchObject({ customerId: ctx.caller.platformId, platformCustomerId: ctx.caller.platformId, status: 'PENDING' });
      await webhooks(pulled.id, ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
      expect(await balances()).toEqual({ available: 6_000, total: 6_000 });
      const pushed = created(await ctx.caller.req('POST', '/transfer-out', { source: { accountId: own }, destination: { accountId: bank }, amount: 2_500 }));
      await webhooks(pushed.id, ['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.COMPLETED']);
      expect(await balances()).toEqual({ available: 3_500, total: 3_500 });
      const listed = (await ctx.caller.req('GET', `/transactions?customerId=${encodeURIComponent(ctx.caller.platformId)}`)).json();
      expect(listed.data.map((d: { id: string }) => d.id)).toEqual([pushed.id, pulled.id]);
      // A customer's account with the platform's bank account, or the reverse: unknown.
      expectErrorObject(await ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: bank }, amount: 1 }), 'REFERENCE_NOT_FOUND');
      expectErrorObject(await ctx.caller.req('POST', '/transfer-out', { source: { accountId: own }, destination: { accountId: externals.get('000') }, amount: 1 }), 'REFERENCE_NOT_FOUND');
      await expectBalances('after the platform transfers');
    });

    it('400 names every invalid field at once; another currency and a rail the account lacks are 400s too', async () => {
      const res = await ctx.caller.req('POST', '/transfer-out', { source: {}, destination: { accountId: '', paymentRail: 'TELEGRAPH' }, amount: 0, extra: true });
      expectErrorObject(res, 'INVALID_INPUT');
      const fields = (res.json().details.errors as { field: string }[]).map((e) => e.field).sort();
      expect(fields).toEqual(expect.arrayContaining(['amount', 'destination.accountId', 'destination.paymentRail', 'source.accountId']));
      const eur = (await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...eurAccount(ibanEndingIn('010')) })).json().id;
      const cross = await ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: eur }, amount: 1 });
      expectErrorObject(cross, 'INVALID_INPUT');
      expect(cross.json().details.errors[0].field).toBe('destination.accountId');
      const rail = await ctx.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: externals.get('000'), paymentRail: 'SEPA' }, amount: 1 });
      expectErrorObject(rail, 'INVALID_INPUT');
      expect(rail.json().details.errors[0].field).toBe('destination.paymentRail');
      await expectBalances('after the 400s');
    });

    it('GET /transactions lists both kinds newest first under the type, status, identifier and reference filters, paging without a skip', async () => {
      const all = (await ctx.caller.req('GET', `/transactions?customerId=${encodeURIComponent(customerId)}&limit=100`)).json();
      const ids = all.data.map((d: { id: string }) => d.id);
      expect(all.totalCount).toBe(ids.length);
      const created = all.data.map((d: { createdAt: string }) => Date.parse(d.createdAt));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      const paged: string[] = [];
      let cursor: string | undefined;
      do {
        const page = (await ctx.caller.req('GET', `/transactions?customerId=${encodeURIComponent(customerId)}&limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json();
        paged.push(...page.data.map((d: { id: string }) => d.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(paged).toEqual(ids);
      const outgoing = (await ctx.caller.req('GET', `/transactions?customerId=${encodeURIComponent(customerId)}&type=OUTGOING&limit=100`)).json();
      expect(outgoing.data.length).toBeGreaterThan(0);
      expect(outgoing.data.every((d: { type: string }) => d.type === 'OUTGOING')).toBe(true);
      const failedIn = (await ctx.caller.req('GET', `/transactions?customerId=${encodeURIComponent(customerId)}&type=INCOMING&status=FAILED&limit=100`)).json();
      expect(failedIn.data.length).toBeGreaterThan(0);
      expect(failedIn.data.every((d: { type: string; status: string }) => d.type === 'INCOMING' && d.status === 'FAILED')).toBe(true);
      const to004 = (await ctx.caller.req('GET', `/transactions?receiverAccountIdentifier=123456789004&limit=100`)).json();
      expect(to004.data.map((d: { type: string }) => d.type)).toEqual(['OUTGOING']);
      const one = all.data[0];
      const byRef = (await ctx.caller.req('GET', `/transactions?reference=${one.reconciliationInstructions.reference}`)).json();
      expect(byRef.data.map((d: { id: string }) => d.id)).toEqual([one.id]);
      expect((await ctx.caller.req('GET', `/transactions?customerId=${encodeURIComponent(customerId)}&type=CARD`)).json().totalCount).toBe(0);
    });
  },
  // WORKER_ENABLED: a clock advance waits for the jobs it made due to land before answering.
  { WORKER_ENABLED: '1' },
);
