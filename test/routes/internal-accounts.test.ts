import { beforeAll, describe, expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { startWorker } from '../../src/jobs/index.js';
import { drainCardJobs } from '../helpers/card-jobs.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { activeCard, insertTestCustomer } from '../helpers/fixtures.js';
import { HoldingReceiver } from '../helpers/holding-receiver.js';
import { basicAuth, BASE, describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';

const individual = (name: string) => ({ customerType: 'INDIVIDUAL', fullName: name });

interface Account {
  id: string;
  customerId: string;
  type: string;
  status: string;
  balance: { amount: number; currency: { code: string } };
  totalBalance: { amount: number; currency: { code: string } };
  fundingPaymentInstructions: unknown[];
  createdAt: string;
  updatedAt: string;
}

async function accountsOf(caller: Caller, query: string): Promise<{ data: Account[]; hasMore: boolean; nextCursor?: string; totalCount: number }> {
  const res = await caller.req('GET', `/customers/internal-accounts?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function accountOf(caller: Caller, customerId: string): Promise<Account> {
  const page = await accountsOf(caller, `customerId=${customerId}`);
  expect(page.data).toHaveLength(1);
  return page.data[0]!;
}

const balances = (a: Account) => ({ available: a.balance.amount, total: a.totalBalance.amount });

async function fund(caller: Caller, accountId: string, amount: number): Promise<Account> {
  const res = await caller.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A cardholder made through the API (so with its account) and an ACTIVE card. */
async function cardholder(t: TestApp, caller: Caller): Promise<{ customerId: string; cardId: string; accountId: string }> {
  const customer = await caller.req('POST', '/customers', individual('Card Holder'));
  expect(customer.statusCode, customer.body).toBe(201);
  const customerId = customer.json().id as string;
  const card = await activeCard(t, caller, customerId);
  return { customerId, cardId: card.id, accountId: (await accountOf(caller, customerId)).id };
}

describeEachEngine('internal accounts', (t) => {
  const drain = () => drainCardJobs(t.services, t.app.log);

  describe('created with each customer, listed with the documented filters', () => {
    let caller: Caller;
    let a: string;
    let b: string;
    beforeAll(async () => {
      caller = await t.newCaller();
      a = (await caller.req('POST', '/customers', individual('Ada'))).json().id;
      b = (await caller.req('POST', '/customers', individual('Bob'))).json().id;
    });

    it('gives a new customer one USD INTERNAL_FIAT account, ACTIVE, with nothing in it, in the document shape', async () => {
      const account = await accountOf(caller, a);
      expect(account).toEqual({
        id: expect.stringMatching(/^InternalAccount:[0-9a-f-]{36}$/),
        customerId: a,
        type: 'INTERNAL_FIAT',
        status: 'ACTIVE',
        balance: { amount: 0, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } },
        totalBalance: { amount: 0, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } },
        fundingPaymentInstructions: [
          {
            instructionsNotes: expect.any(String),
            isPlatformAccount: false,
            accountOrWalletInfo: { accountType: 'USD_ACCOUNT', accountNumber: expect.stringMatching(/^\d{12}$/), routingNumber: expect.stringMatching(/^\d{9}$/), bankName: expect.any(String), paymentRails: ['ACH', 'WIRE'], reference: expect.any(String) },
          },
        ],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const customer = (await caller.req('GET', `/customers/${a}`)).json();
      expect(account.createdAt).toBe(customer.createdAt);
    });

    it('filters by customerId, currency and type, and pages with a cursor', async () => {
      const all = await accountsOf(caller, '');
      expect(all.totalCount).toBe(2);
      expect(all.data.map((x) => x.customerId)).toEqual([a, b]);
      expect((await accountsOf(caller, `customerId=${b}`)).data.map((x) => x.customerId)).toEqual([b]);
      expect((await accountsOf(caller, 'currency=USD')).totalCount).toBe(2);
      expect(await accountsOf(caller, 'currency=EUR')).toEqual({ data: [], hasMore: false, totalCount: 0 });
      expect((await accountsOf(caller, `type=INTERNAL_FIAT&customerId=${a}`)).data.map((x) => x.customerId)).toEqual([a]);
      expect((await accountsOf(caller, 'type=EMBEDDED_WALLET')).totalCount).toBe(0);
      const first = await accountsOf(caller, 'limit=1');
      expect(first).toMatchObject({ hasMore: true, totalCount: 2 });
      const second = await accountsOf(caller, `limit=1&cursor=${first.nextCursor}`);
      expect(second).toMatchObject({ hasMore: false, totalCount: 2 });
      expect([...first.data, ...second.data].map((x) => x.customerId)).toEqual([a, b]);
      // The cursor is bound to the filter it was made for.
      const foreignCursor = await caller.req('GET', `/customers/internal-accounts?limit=1&currency=USD&cursor=${first.nextCursor}`);
      expect(expectErrorObject(foreignCursor, 'error')).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    });

    it('refuses an unknown type and an unknown parameter; never shows another platform its accounts', async () => {
      expect(expectErrorObject(await caller.req('GET', '/customers/internal-accounts?type=SAVINGS'), 'error')).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      expect(expectErrorObject(await caller.req('GET', '/customers/internal-accounts?owner=x'), 'error')).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      const other = await t.newCaller();
      expect(await accountsOf(other, `customerId=${a}`)).toEqual({ data: [], hasMore: false, totalCount: 0 });
      expect((await accountsOf(other, '')).totalCount).toBe(0);
    });

    it('a customer written straight to the store (as the seed does) gets its account when listed by it', async () => {
      const seeded = await insertTestCustomer(t, caller);
      const account = await accountOf(caller, seeded);
      expect(account).toMatchObject({ customerId: seeded, type: 'INTERNAL_FIAT', status: 'ACTIVE', balance: { amount: 0 } });
      expect((await accountOf(caller, seeded)).id).toBe(account.id);
    });
  });

  describe('sandbox funding', () => {
    it('credits both balances and answers the account; each funding is a ledger entry', async () => {
      const caller = await t.newCaller();
      const customer = (await caller.req('POST', '/customers', individual('Funded'))).json().id as string;
      const account = await accountOf(caller, customer);
      const once = await fund(caller, account.id, 100_000);
      expect(once).toMatchObject({ id: account.id, customerId: customer, balance: { amount: 100_000 }, totalBalance: { amount: 100_000 } });
      expect(Date.parse(once.updatedAt)).toBeGreaterThanOrEqual(Date.parse(account.updatedAt));
      expect(balances(await fund(caller, account.id, 2_550))).toEqual({ available: 102_550, total: 102_550 });
      expect(balances(await accountOf(caller, customer))).toEqual({ available: 102_550, total: 102_550 });
      const entries = await entriesOf(t.services.store.db, account.id);
      expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([
        ['FUNDING', 100_000],
        ['FUNDING', 2_550],
      ]);
    });

    it('unknown or foreign account: 404; a bad amount: 400; a VIEW token: 403; a production token: 404 as an unknown path', async () => {
      const caller = await t.newCaller();
      const customer = (await caller.req('POST', '/customers', individual('Guarded'))).json().id as string;
      const account = await accountOf(caller, customer);
      const other = await t.newCaller();
      expect(expectErrorObject(await other.req('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 1 }), 'error')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      expect(expectErrorObject(await caller.req('POST', '/sandbox/internal-accounts/InternalAccount:0190ffff-0000-7000-8000-000000000000/fund', { amount: 1 }), 'error')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      for (const amount of [0, -5, 1.5, 100_000_000_001, '10']) {
        expect(expectErrorObject(await caller.req('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount }), String(amount))).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      }
      const viewer = (await caller.req('POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] })).json();
      const asViewer = await t.app.inject({ method: 'POST', url: `${BASE}/sandbox/internal-accounts/${account.id}/fund`, headers: { authorization: basicAuth(viewer.clientId, viewer.clientSecret) }, payload: { amount: 1 } });
      expect(expectErrorObject(asViewer, 'error')).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      const production = await t.newCaller('production');
      expect(expectErrorObject(await production.req('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 1 }), 'error')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      expect(balances(await accountOf(caller, customer))).toEqual({ available: 0, total: 0 });
    });
  });

  describe('card operations move the balances once they land', () => {
    let caller: Caller;
    let card: { customerId: string; cardId: string; accountId: string };
    const sim = async (kind: string, body: unknown) => {
      const res = await caller.req('POST', `/sandbox/cards/${card.cardId}/simulate/${kind}`, body);
      expect(res.statusCode, res.body).toBe(202);
      return res.json();
    };
    const after = async () => {
      await drain();
      return balances(await accountOf(caller, card.customerId));
    };
    beforeAll(async () => {
      caller = await t.newCaller();
      card = await cardholder(t, caller);
      await fund(caller, card.accountId, 10_000);
    });

    it('authorize holds, clearing debits (the extra above the hold too), a return credits, a reversal debits again', async () => {
      const { cardTransactionId: id } = await sim('authorization', { amount: 1_000, currency: { code: 'USD' }, merchant: { descriptor: 'COFFEE' } });
      expect(await after()).toEqual({ available: 9_000, total: 10_000 });
      const txn = (await caller.req('GET', `/transactions/${id}`)).json();
      expect(txn.accountId).toBe(card.accountId);
      await sim('clearing', { cardTransactionId: id, amount: 400 });
      expect(await after()).toEqual({ available: 9_000, total: 9_600 });
      await sim('clearing', { cardTransactionId: id, amount: 800 }); // 200 above the 600 still held: a tip
      expect(await after()).toEqual({ available: 8_800, total: 8_800 });
      await sim('return', { cardTransactionId: id, amount: 500 });
      expect(await after()).toEqual({ available: 9_300, total: 9_300 });
      await sim('return', { cardTransactionId: id, amount: 700 });
      expect(await after()).toEqual({ available: 10_000, total: 10_000 });
      await sim('return_reversal', { cardTransactionId: id });
      expect(await after()).toEqual({ available: 9_300, total: 9_300 });
      const entries = await entriesOf(t.services.store.db, card.accountId);
      expect(entries.filter((e) => e.card_transaction_id === id).map((e) => [e.kind, Number(e.amount)])).toEqual([
        ['HOLD', -1_000],
        ['HOLD_RELEASE', 400],
        ['CLEARING_DEBIT', -400],
        ['HOLD_RELEASE', 600],
        ['CLEARING_DEBIT', -800],
        ['RETURN_CREDIT', 500],
        ['RETURN_CREDIT', 700],
        ['RETURN_REVERSAL_DEBIT', -700],
      ]);
    });

    it('an expiry, and a clearing of 0, release the hold and move nothing else', async () => {
      const start = balances(await accountOf(caller, card.customerId));
      const { cardTransactionId: a } = await sim('authorization', { amount: 2_000, currency: { code: 'USD' }, merchant: { descriptor: 'HOTEL' } });
      expect(await after()).toEqual({ available: start.available - 2_000, total: start.total });
      await sim('authorization_expiry', { cardTransactionId: a });
      expect(await after()).toEqual(start);
      const { cardTransactionId: b } = await sim('authorization', { amount: 3_000, currency: { code: 'USD' }, merchant: { descriptor: 'CAR RENTAL' } });
      expect(await after()).toEqual({ available: start.available - 3_000, total: start.total });
      await sim('clearing', { cardTransactionId: b, amount: 0 });
      expect(await after()).toEqual(start);
      expect((await caller.req('GET', `/transactions/${b}`)).json()).toMatchObject({ status: 'EXPIRED', accountId: card.accountId });
    });

    it('an authorization above the available balance is declined INSUFFICIENT_FUNDS and holds nothing; one of exactly the balance is approved', async () => {
      const start = balances(await accountOf(caller, card.customerId));
      const declined = await sim('authorization', { amount: start.available + 1, currency: { code: 'USD' }, merchant: { descriptor: 'BIG TICKET' } });
      expect(await after()).toEqual(start);
      const txn = (await caller.req('GET', `/transactions/${declined.cardTransactionId}`)).json();
      expect(txn).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS', accountId: card.accountId, authorizedAmount: { amount: 0 } });
      expect(txn.operations).toEqual([expect.objectContaining({ kind: 'AUTHORIZATION', status: 'REJECTED', amount: start.available + 1, reason: expect.stringMatching(/^INSUFFICIENT_FUNDS: /) })]);
      const exact = await sim('authorization', { amount: start.available, currency: { code: 'USD' }, merchant: { descriptor: 'ALL IN' } });
      expect(await after()).toEqual({ available: 0, total: start.total });
      await sim('authorization_expiry', { cardTransactionId: exact.cardTransactionId });
      expect(await after()).toEqual(start);
    });

    it('a cardholder written straight to the store gets its account when listed, as its card is issued: empty, so an authorization declines', async () => {
      const holder = await insertTestCustomer(t, caller);
      const cardId = (await activeCard(t, caller, holder)).id as string;
      const res = await caller.req('POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount: 700, currency: { code: 'USD' }, merchant: { descriptor: 'X' } });
      await drain();
      const account = await accountOf(caller, holder);
      expect(balances(account)).toEqual({ available: 0, total: 0 });
      expect((await caller.req('GET', `/transactions/${res.json().cardTransactionId}`)).json()).toMatchObject({ accountId: account.id, status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
    });
  });

  it('a seeded random sequence of operations leaves every balance equal to the sum of its entries and to the arithmetic', { timeout: 120_000 }, async () => {
    const caller = await t.newCaller();
    const holders = [await cardholder(t, caller), await cardholder(t, caller)];
    let seed = 0x5eed1234;
    const random = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
    const amount = (max: number) => 1 + Math.floor(random() * max);

    interface Model {
      holder: number;
      authorized: number;
      settled: number;
      refunded: number;
      status: string;
      lastReturn: { amount: number; prior: string } | null;
    }
    const funded = [0, 0];
    const txns = new Map<string, Model>();
    const sim = async (h: number, kind: string, body: unknown) => {
      const res = await caller.req('POST', `/sandbox/cards/${holders[h]!.cardId}/simulate/${kind}`, body);
      expect(res.statusCode, `${kind} ${JSON.stringify(body)}: ${res.body}`).toBe(202);
      return res.json();
    };

    for (let step = 0; step < 120; step++) {
      const h = Math.floor(random() * 2);
      const mine = [...txns.entries()].filter(([, m]) => m.holder === h);
      const open = mine.filter(([, m]) => m.status === 'AUTHORIZED' || m.status === 'PARTIALLY_SETTLED');
      const fullyOpen = mine.filter(([, m]) => m.status === 'AUTHORIZED' && m.settled === 0);
      const returnable = mine.filter(([, m]) => (m.status === 'SETTLED' || m.status === 'PARTIALLY_SETTLED') && m.settled > m.refunded);
      const reversible = mine.filter(([, m]) => m.status === 'REFUNDED' && m.lastReturn);
      const choices = ['fund', 'authorize', 'authorize'];
      if (open.length) choices.push('clear', 'clear', 'clear');
      if (fullyOpen.length) choices.push('expire', 'clear0');
      if (returnable.length) choices.push('return', 'return');
      if (reversible.length) choices.push('reverse');
      const choice = pick(choices);
      if (choice === 'fund') {
        const x = amount(5_000);
        await fund(caller, holders[h]!.accountId, x);
        funded[h] = funded[h]! + x;
      } else if (choice === 'authorize') {
        const x = amount(3_000);
        const { cardTransactionId } = await sim(h, 'authorization', { amount: x, currency: { code: 'USD' }, merchant: { descriptor: `STEP ${step}` } });
        txns.set(cardTransactionId, { holder: h, authorized: x, settled: 0, refunded: 0, status: 'AUTHORIZED', lastReturn: null });
      } else if (choice === 'clear') {
        const [id, m] = pick(open);
        const remaining = m.authorized - m.settled;
        // Partial, exactly the rest, or above it (over-authorization).
        const x = pick([Math.max(1, Math.floor(remaining / 2)), remaining, remaining + amount(500)]);
        await sim(h, 'clearing', { cardTransactionId: id, amount: x });
        m.settled += x;
        m.status = m.settled >= m.authorized ? 'SETTLED' : 'PARTIALLY_SETTLED';
      } else if (choice === 'expire' || choice === 'clear0') {
        const [id, m] = pick(fullyOpen);
        await sim(h, choice === 'expire' ? 'authorization_expiry' : 'clearing', choice === 'expire' ? { cardTransactionId: id } : { cardTransactionId: id, amount: 0 });
        m.status = 'EXPIRED';
      } else if (choice === 'return') {
        const [id, m] = pick(returnable);
        const net = m.settled - m.refunded;
        const x = pick([net, amount(net)]);
        await sim(h, 'return', { cardTransactionId: id, amount: x });
        m.refunded += x;
        if (m.refunded === m.settled) {
          m.lastReturn = { amount: x, prior: m.status };
          m.status = 'REFUNDED';
        } else m.lastReturn = null;
      } else {
        const [id, m] = pick(reversible);
        await sim(h, 'return_reversal', { cardTransactionId: id });
        m.refunded -= m.lastReturn!.amount;
        m.status = m.lastReturn!.prior;
        m.lastReturn = null;
      }
      if (step % 30 === 29) await drain();
    }
    await drain();

    const kinds = new Set<string>();
    for (const [h, holder] of holders.entries()) {
      const models = [...txns.values()].filter((m) => m.holder === h);
      const settled = models.reduce((s, m) => s + m.settled, 0);
      const refunded = models.reduce((s, m) => s + m.refunded, 0);
      const held = models.reduce((s, m) => s + (m.status === 'AUTHORIZED' || m.status === 'PARTIALLY_SETTLED' ? Math.max(m.authorized - m.settled, 0) : 0), 0);
      const total = funded[h]! - settled + refunded;
      const account = await accountOf(caller, holder.customerId);
      expect(balances(account), `holder ${h}`).toEqual({ available: total - held, total });
      const entries = await entriesOf(t.services.store.db, holder.accountId);
      for (const e of entries) kinds.add(e.kind);
      const sum = (xs: typeof entries) => xs.reduce((s, e) => s + Number(e.amount), 0);
      expect(sum(entries)).toBe(account.balance.amount);
      expect(sum(entries.filter((e) => e.kind !== 'HOLD' && e.kind !== 'HOLD_RELEASE'))).toBe(account.totalBalance.amount);
    }
    // Every status the model tracked is what the service landed.
    for (const [id, m] of txns) expect((await caller.req('GET', `/transactions/${id}`)).json().status, id).toBe(m.status);
    expect([...kinds].sort()).toEqual(['CLEARING_DEBIT', 'FUNDING', 'HOLD', 'HOLD_RELEASE', 'RETURN_CREDIT', 'RETURN_REVERSAL_DEBIT']);
  });

  it('each balance change sends INTERNAL_ACCOUNT.BALANCE_UPDATED with the account after it, verified both ways', { timeout: 60_000 }, async () => {
    const caller = await t.newCaller();
    const receiver = await new HoldingReceiver().start();
    receiver.holding = false;
    const worker = startWorker(t.services, t.app.log);
    try {
      const config = await caller.req('PATCH', '/config', { webhookEndpoint: receiver.url });
      receiver.trust(config.json());
      const card = await cardholder(t, caller);
      await fund(caller, card.accountId, 5_000);
      const res = await caller.req('POST', `/sandbox/cards/${card.cardId}/simulate/authorization`, { amount: 1_200, currency: { code: 'USD' }, merchant: { descriptor: 'WEBHOOK' } });
      expect(res.statusCode).toBe(202);
      const balanceEvents = () => receiver.verified.filter((d) => d.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED');
      await receiver.waitFor('two balance events', () => balanceEvents().length >= 2);
      await receiver.waitFor('the card transaction event', () => receiver.verified.some((d) => d.type === 'CARD_TRANSACTION.AUTHORIZED'));
      expect(receiver.unverified).toBe(0);
      const datas = balanceEvents().map((d) => d.body.data as Account);
      const byAmount = datas.map((a) => [a.id, a.balance.amount, a.totalBalance.amount]).sort((x, y) => Number(y[1]) - Number(x[1]));
      expect(byAmount).toEqual([
        [card.accountId, 5_000, 5_000],
        [card.accountId, 3_800, 5_000],
      ]);
      for (const d of balanceEvents()) {
        expect(Object.keys(d.body).sort()).toEqual(['data', 'id', 'timestamp', 'type']);
        expect(d.body.data).toMatchObject({ customerId: card.customerId, type: 'INTERNAL_FIAT', status: 'ACTIVE', fundingPaymentInstructions: [{ isPlatformAccount: false, accountOrWalletInfo: { accountType: 'USD_ACCOUNT' } }] });
      }
      const logged = (await caller.req('GET', '/webhook-events?type=INTERNAL_ACCOUNT.BALANCE_UPDATED')).json();
      expect(logged.totalCount).toBe(2);
    } finally {
      await worker.stop();
      await receiver.stop();
    }
  });
});
