import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { beforeAll, expect, it, vi } from 'vitest';
import { landTransfer, landTransfers, TRANSFER_SETTLEMENT_JOB, type TransferSettlementJob } from '../../../src/domain/payments/payment-lifecycle.js';
import { entriesOf, findAccount } from '../../../src/store/accounts-repo.js';
import { findPlatformAccount } from '../../../src/store/platform-accounts-repo.js';
import type { UnitOfWork } from '../../../src/store/unit-of-work.js';
import { eurAccount, ibanEndingIn, usdAccount } from '../../helpers/external-accounts.js';
import { insertTestCustomer } from '../../helpers/fixtures.js';
import { expectLedgerMatches, usdAccountOf } from '../../helpers/money.js';
import { describeEachEngine } from '../../helpers/test-app.js';

const FUNDS = 1_000_000;
const FEE = { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 50, fixedFee: { amount: 100, currency: 'USD' } };

/**
 * The set-based landing of settlement jobs (landTransfers, the worker's writeTogether) against
 * landing the same jobs one by one (landTransfer, a commit each): two customers make the same
 * transfers and quote payments; one's jobs land one by one, the other's in one batch, and both
 * end the same: statuses, webhooks, ledger.
 */
describeEachEngine('transfer settlement jobs landed in one batch', (t) => {
  let feeAccountId: string;

  beforeAll(async () => {
    expect((await t.caller.req('PATCH', '/config', { feeConfigs: [FEE] })).statusCode).toBe(200);
    feeAccountId = (await t.caller.req('GET', '/platform/internal-accounts?currency=USD')).json().data[0].id;
  });

  const created = (res: { statusCode: number; body: string; json(): any }, status = 201) => {
    expect(res.statusCode, res.body).toBe(status);
    return res.json() as Record<string, any>;
  };

  /** A funded customer who makes the same transfers and quote payments as every other: its account and the transactions, in order. */
  async function customerWithTransfers(): Promise<{ accountId: string; ids: string[] }> {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL', 'APPROVED');
    const accountId = await usdAccountOf(t.caller, customerId);
    expect((await t.caller.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: FUNDS })).statusCode).toBe(200);
    const ext: Record<string, string> = {};
    for (const suffix of ['000', '004', '005']) ext[suffix] = created(await t.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount(`123456789${suffix}`) })).id;
    for (const suffix of ['000', '005']) ext[`eur${suffix}`] = created(await t.caller.req('POST', '/customers/external-accounts', { customerId, ...eurAccount(ibanEndingIn(suffix)) })).id;
    const out = async (suffix: string, amount: number) => created(await t.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: ext[suffix] }, amount })).id as string;
    const into = async (suffix: string, amount: number) => created(await t.caller.req('POST', '/transfer-in', { source: { accountId: ext[suffix] }, destination: { accountId }, amount })).id as string;
    const quotePayment = async (suffix: string, amount: number) => {
      const quote = created(
        await t.caller.req('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId }, destination: { destinationType: 'ACCOUNT', accountId: ext[suffix] }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount }),
      );
      created(await t.caller.req('POST', `/quotes/${encodeURIComponent(quote.id)}/execute`), 200);
      return quote.transactionId as string;
    };
    const ids = [
      await out('000', 1_000),
      await out('004', 700),
      await out('005', 900),
      await into('000', 2_500),
      await quotePayment('eur000', 10_000),
      // 005 on a quote payment: completes, then the bank returns it (a follow-up job).
      await quotePayment('eur005', 5_000),
      await into('004', 300),
      await out('000', 1_200),
    ];
    // Cancelled before its job runs: the job finds it no longer PENDING.
    created(await t.caller.req('POST', `/transactions/${ids[7]}/cancel`, {}), 200);
    return { accountId, ids };
  }

  /**
   * The queued settlement jobs of these transactions, in the order of `ids` (a 005 one included: it
   * is landed before it is due), or their follow-up jobs that return a payment (queue key `<id>:return`).
   */
  const jobsOf = async (ids: string[], returns = false) => {
    const rows = await t.services.store.db.selectFrom('jobs').select(['payload', 'queue_key']).where('kind', '=', TRANSFER_SETTLEMENT_JOB).where('state', '=', 'queued').execute();
    const mine = rows.filter((r) => (r.queue_key ?? '').endsWith(':return') === returns);
    const jobs = mine.map((r) => JSON.parse(r.payload) as TransferSettlementJob).filter((j) => ids.includes(j.transactionId));
    return jobs.sort((a, b) => ids.indexOf(a.transactionId) - ids.indexOf(b.transactionId));
  };
  const transactions = (ids: string[]) =>
    Promise.all(
      ids.map(async (id) => {
        const row = await t.services.store.db.selectFrom('payment_transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        const quote = await t.services.store.db.selectFrom('quotes').select('status').where('transaction_id', '=', id).executeTakeFirst();
        const refund = row.refund === null ? null : (({ status, reason }) => ({ status, reason }))(JSON.parse(row.refund) as { status: string; reason: string });
        return { status: row.status, failureReason: row.failure_reason, refund, settled: row.settled_at !== null, quote: quote?.status };
      }),
    );
  /** Each transaction's webhooks in the order made: type, and the status and refund they report. */
  const webhooksOf = async (ids: string[]) => {
    const events = (await t.services.store.db.selectFrom('webhook_events').select(['id', 'type', 'body']).where('platform_id', '=', t.caller.platformId).orderBy('id').execute()).map((e) => ({
      type: e.type,
      data: (JSON.parse(e.body) as { data: { id: string; status: string; refund?: { status: string; reason: string } } }).data,
    }));
    return ids.map((id) => events.filter((e) => e.data.id === id).map((e) => [e.type, e.data.status, e.data.refund?.status ?? null, e.data.refund?.reason ?? null]));
  };
  /** An account's ledger entries of these transactions, in order, each as its transaction's index, kind and amount. */
  const ledgerOf = async (accountId: string, ids: string[]) =>
    (await entriesOf(t.services.store.db, accountId)).filter((e) => ids.includes(e.payment_transaction_id ?? '')).map((e) => [ids.indexOf(e.payment_transaction_id!), e.kind, Number(e.amount)]);
  const balances = async (accountId: string) => {
    const a = (await findAccount(t.services.store.db, t.caller.platformId, accountId))!;
    return { available: Number(a.available_balance), total: Number(a.total_balance) };
  };

  it('lands a batch of transfers, a 004, a 005, a transfer-in, quote payments (a returned one) and a cancelled one as one by one would', async () => {
    const single = await customerWithTransfers();
    const batch = await customerWithTransfers();
    const now = Date.now();

    // First round: every settlement job; one by one (a commit each), and all at once.
    const singleJobs = await jobsOf(single.ids);
    const batchJobs = await jobsOf(batch.ids);
    expect(batchJobs.map((j) => batch.ids.indexOf(j.transactionId))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const job of singleJobs) await t.services.store.transaction((uow) => landTransfer(uow, job, now));
    await t.services.store.transaction((uow) => landTransfers(uow, batchJobs, now));

    // Second round: the returned quote payment's follow-up job, with the first round's jobs again (a job run twice changes nothing).
    const singleReturn = await jobsOf(single.ids, true);
    const batchReturn = await jobsOf(batch.ids, true);
    expect(batchReturn).toHaveLength(1);
    for (const job of [...singleReturn, ...singleJobs]) await t.services.store.transaction((uow) => landTransfer(uow, job, now + 1));
    await t.services.store.transaction((uow) => landTransfers(uow, [...batchReturn, ...batchJobs], now + 1));

    const ended = await transactions(batch.ids);
    expect(ended.map((x) => [x.status, x.failureReason, x.refund?.status ?? null, x.refund?.reason ?? null, x.quote ?? null])).toEqual([
      ['COMPLETED', null, null, null, null],
      ['FAILED', 'ACCOUNT_CANNOT_RECEIVE', 'COMPLETED', 'TRANSACTION_FAILED', null],
      ['FAILED', 'QUOTE_EXECUTION_FAILED', 'COMPLETED', 'TIMEOUT', null],
      ['COMPLETED', null, null, null, null],
      ['COMPLETED', null, null, null, 'COMPLETED'],
      ['FAILED', 'PAYOUT_RETURNED', 'COMPLETED', 'TRANSACTION_FAILED', 'FAILED'],
      ['FAILED', 'COLLECTION_FAILED', null, null, null],
      ['FAILED', 'QUOTE_EXECUTION_FAILED', 'COMPLETED', 'USER_CANCELLATION', null],
    ]);
    expect(ended).toEqual(await transactions(single.ids));

    const webhooks = await webhooksOf(batch.ids);
    expect(webhooks[5]).toEqual([
      ['OUTGOING_PAYMENT.PENDING', 'PENDING', null, null],
      ['OUTGOING_PAYMENT.COMPLETED', 'COMPLETED', null, null],
      ['OUTGOING_PAYMENT.FAILED', 'FAILED', 'PENDING', 'TRANSACTION_FAILED'],
      ['OUTGOING_PAYMENT.REFUND_COMPLETED', 'FAILED', 'COMPLETED', 'TRANSACTION_FAILED'],
    ]);
    expect(webhooks).toEqual(await webhooksOf(single.ids));

    // The ledger: the same entries in the same order on the customer's account and on the platform's fee account.
    expect(await ledgerOf(batch.accountId, batch.ids)).toEqual(await ledgerOf(single.accountId, single.ids));
    const fees = await ledgerOf(feeAccountId, batch.ids);
    expect(fees.map(([, kind]) => kind)).toEqual(['PLATFORM_FEE_CREDIT', 'PLATFORM_FEE_CREDIT', 'PLATFORM_FEE_REVERSAL']);
    expect(fees).toEqual(await ledgerOf(feeAccountId, single.ids));
    const after = await balances(batch.accountId);
    expect(after).toEqual(await balances(single.accountId));
    // Funded, less the two completed transfers-out and the completed quote payment, plus the completed transfer-in; nothing held.
    const paid = Number((await t.services.store.db.selectFrom('payment_transactions').select('amount').where('id', '=', batch.ids[4]!).executeTakeFirstOrThrow()).amount);
    expect(after).toEqual({ available: FUNDS - 1_000 + 2_500 - paid, total: FUNDS - 1_000 + 2_500 - paid });
    await expectLedgerMatches(t.services.store.db, batch.accountId, after, 'after the batch');
    await expectLedgerMatches(t.services.store.db, single.accountId, after, 'after one by one');
    const own = (await findPlatformAccount(t.services.store.db, t.caller.platformId, feeAccountId))!;
    const fee = { available: Number(own.available_balance), total: Number(own.total_balance) };
    await expectLedgerMatches(t.services.store.db, feeAccountId, fee, "the platform's fee account");
  });

  /** The statements `landTransfers` itself sends (the commit's hooks and COMMIT aside), counted through the unit of work it is given. */
  async function statementsOf(jobs: TransferSettlementJob[], now: number): Promise<string[]> {
    const sent: string[] = [];
    const nodes = new WeakMap<object, string>();
    // A query's node is transformed as it is built (a nested one too); its result, once per statement executed.
    const counting: KyselyPlugin = {
      transformQuery: (args) => (nodes.set(args.queryId, args.node.kind), args.node),
      transformResult: async (args) => (sent.push(nodes.get(args.queryId) ?? '?'), args.result),
    };
    await t.services.store.transaction(async (uow) => {
      await landTransfers(Object.assign(Object.create(uow) as UnitOfWork, { db: uow.db.withPlugin(counting) }), jobs, now);
    });
    return sent;
  }

  /** A funded customer's transfer-outs of these amounts to an external account where each completes: its account and the transactions, in order. */
  async function transfersOut(amounts: number[]): Promise<{ accountId: string; ids: string[] }> {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL', 'APPROVED');
    const accountId = await usdAccountOf(t.caller, customerId);
    expect((await t.caller.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: FUNDS })).statusCode).toBe(200);
    const external = created(await t.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('123456789000') })).id;
    const ids: string[] = [];
    for (const amount of amounts) ids.push(created(await t.caller.req('POST', '/transfer-out', { source: { accountId }, destination: { accountId: external }, amount })).id);
    return { accountId, ids };
  }

  it("holds the account's lock for no round trip but COMMIT's on PostgreSQL, and the balance event reports the balances the batch leaves", async () => {
    const { accountId, ids } = await transfersOut([100, 250, 400]);
    const jobs = await jobsOf(ids);
    const balanceEvents = async () =>
      (await t.services.store.db.selectFrom('webhook_events').select(['id', 'body']).where('type', '=', 'INTERNAL_ACCOUNT.BALANCE_UPDATED').orderBy('id').execute()).filter(
        (e) => (JSON.parse(e.body) as { data: { id: string } }).data.id === accountId,
      );
    const before = new Set((await balanceEvents()).map((e) => e.id));
    const queries = vi.spyOn(pg.Client.prototype, 'query');
    let texts: string[];
    try {
      await t.services.store.transaction((uow) => landTransfers(uow, jobs, Date.now()));
      texts = queries.mock.calls.map(([q]) => String(typeof q === 'string' ? q : (q as { text: string }).text));
    } finally {
      queries.mockRestore();
    }
    if (t.engine === 'postgres') {
      // The balances move in the last round trip, which ends with COMMIT; no earlier statement locks the account.
      const moving = texts.filter((q) => /update "internal_accounts" as t\s+set available_balance/.test(q));
      expect(moving).toHaveLength(1);
      expect(moving[0]).toMatch(/commit$/);
      // (The transactions' lock reads their accounts too, locking only the transactions: `of t`.)
      expect(texts.filter((q) => /internal_accounts[\s\S]*for (no key )?update(?! of t\b)/.test(q) && !/commit$/.test(q))).toEqual([]);
    }
    expect((await transactions(ids)).map((x) => x.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    const after = FUNDS - 750;
    await expectLedgerMatches(t.services.store.db, accountId, { available: after, total: after }, 'after the landing');
    const landed = (await balanceEvents()).filter((e) => !before.has(e.id)).map((e) => JSON.parse(e.body) as { data: Record<string, any> });
    expect(landed).toHaveLength(1);
    expect(landed[0]!.data).toMatchObject({ id: accountId, balance: { amount: after, currency: { code: 'USD' } }, totalBalance: { amount: after, currency: { code: 'USD' } }, status: 'ACTIVE' });
  });

  it('lands a batch in as many statements whatever its size on PostgreSQL, where each is a round trip', async () => {
    const { accountId, ids } = await transfersOut(Array(8).fill(100));
    const jobs = await jobsOf(ids);
    const one = await statementsOf(jobs.slice(0, 1), Date.now());
    const seven = await statementsOf(jobs.slice(1), Date.now());
    expect((await transactions(ids)).map((x) => x.status)).toEqual(Array(8).fill('COMPLETED'));
    // The transactions locked, updated, their events inserted with their deliveries, the account's balances moved with its entries;
    // SQLite (no round trips to save): the deliveries and the entries in statements of their own, and the transactions updated row by row.
    expect(one).toHaveLength(t.engine === 'postgres' ? 4 : 6);
    expect(seven).toHaveLength(t.engine === 'postgres' ? one.length : one.length + 6);
    await expectLedgerMatches(t.services.store.db, accountId, { available: FUNDS - 800, total: FUNDS - 800 }, 'after the landings');
  });
});
