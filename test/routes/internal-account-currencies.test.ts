import { beforeAll, describe, expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { startWorker } from '../../src/jobs/index.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { HoldingReceiver } from '../helpers/holding-receiver.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

interface Account {
  id: string;
  customerId?: string;
  type: string;
  status: string;
  balance: { amount: number; currency: { code: string; decimals: number } };
  totalBalance: { amount: number; currency: { code: string; decimals: number } };
  fundingPaymentInstructions: { isPlatformAccount: boolean; accountOrWalletInfo: { accountType: string } & Record<string, unknown> }[];
}

const currency = (code: string) => ({ currencyCode: code, minAmount: 1, maxAmount: 1_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [] });

async function ok<T = any>(res: { statusCode: number; body: string; json(): any }, what: string): Promise<T> {
  expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(300);
  return res.json() as T;
}

async function accountsOf(caller: Caller, customerId: string, extra = ''): Promise<Account[]> {
  return (await ok(await caller.req('GET', `/customers/internal-accounts?customerId=${customerId}${extra}`), 'list')).data;
}

const codes = (accounts: Account[]) => accounts.map((a) => a.balance.currency.code).sort();

describeEachEngine('internal accounts per currency', (t) => {
  let caller: Caller;
  beforeAll(async () => {
    caller = await t.newCaller();
    await ok(await caller.req('PATCH', '/config', { supportedCurrencies: ['USD', 'EUR', 'MXN', 'BRL', 'BTC'].map(currency) }), 'config');
  });

  it('opens USD and each of the customer\u2019s supported currencies at creation, each in its own minor units and rails', async () => {
    const customer = await ok(await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Multi', currencies: ['EUR', 'MXN', 'GBP'] }), 'create');
    const accounts = await accountsOf(caller, customer.id);
    // GBP is not among the platform's supportedCurrencies: no account.
    expect(codes(accounts)).toEqual(['EUR', 'MXN', 'USD']);
    for (const a of accounts) expect(a).toMatchObject({ customerId: customer.id, type: 'INTERNAL_FIAT', status: 'ACTIVE', balance: { amount: 0 }, totalBalance: { amount: 0 } });
    const rail = (code: string) => accounts.find((a) => a.balance.currency.code === code)!.fundingPaymentInstructions.map((i) => i.accountOrWalletInfo.accountType);
    expect([rail('USD'), rail('EUR'), rail('MXN')]).toEqual([['USD_ACCOUNT'], ['EUR_ACCOUNT'], ['MXN_ACCOUNT']]);
    // The same coordinates on every read.
    expect((await accountsOf(caller, customer.id)).map((a) => a.fundingPaymentInstructions)).toEqual(accounts.map((a) => a.fundingPaymentInstructions));
  });

  it('opens the new currencies on PATCH and keeps the dropped ones with their balances', async () => {
    const customer = await ok(await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Changer', currencies: ['EUR'] }), 'create');
    const eur = (await accountsOf(caller, customer.id, '&currency=EUR'))[0]!;
    await ok(await caller.req('POST', `/sandbox/internal-accounts/${eur.id}/fund`, { amount: 12_345 }), 'fund EUR');
    await ok(await caller.req('PATCH', `/customers/${customer.id}`, { customerType: 'INDIVIDUAL', currencies: ['BRL', 'BTC'] }), 'patch');
    const accounts = await accountsOf(caller, customer.id);
    expect(codes(accounts)).toEqual(['BRL', 'BTC', 'EUR', 'USD']);
    expect(accounts.find((a) => a.id === eur.id)!.balance.amount).toBe(12_345);
    const btc = accounts.find((a) => a.balance.currency.code === 'BTC')!;
    expect(btc).toMatchObject({ type: 'INTERNAL_CRYPTO', balance: { currency: { code: 'BTC', decimals: 8 } } });
    expect(btc.fundingPaymentInstructions[0]!.accountOrWalletInfo).toMatchObject({ accountType: 'BITCOIN_L1', network: 'BITCOIN' });
    expect((await accountsOf(caller, customer.id, '&type=INTERNAL_CRYPTO')).map((a) => a.id)).toEqual([btc.id]);
    // The same PATCH again opens nothing more.
    await ok(await caller.req('PATCH', `/customers/${customer.id}`, { customerType: 'INDIVIDUAL', currencies: ['BRL', 'BTC'] }), 'patch again');
    expect(await accountsOf(caller, customer.id)).toHaveLength(4);
  });

  it('funds every currency, the balances equal the sum of each account\u2019s ledger entries', async () => {
    const customer = await ok(await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Funder', currencies: ['EUR', 'MXN', 'BRL', 'BTC'] }), 'create');
    const accounts = await accountsOf(caller, customer.id);
    expect(accounts).toHaveLength(5);
    for (const [i, a] of accounts.entries()) {
      await ok(await caller.req('POST', `/sandbox/internal-accounts/${a.id}/fund`, { amount: 1_000 * (i + 1) }), `fund ${a.balance.currency.code}`);
      await ok(await caller.req('POST', `/sandbox/internal-accounts/${a.id}/fund`, { amount: 7 }), `fund ${a.balance.currency.code} again`);
    }
    for (const [i, a] of (await accountsOf(caller, customer.id)).entries()) {
      const sum = (await entriesOf(t.services.store.db, a.id)).reduce((s, e) => s + Number(e.amount), 0);
      expect([a.balance.amount, a.totalBalance.amount, sum]).toEqual([1_000 * (i + 1) + 7, 1_000 * (i + 1) + 7, 1_000 * (i + 1) + 7]);
    }
  });

  describe('GET /platform/internal-accounts', () => {
    it('lists one account per supported currency, no customer, platform instructions, the same ids on every read', async () => {
      const first = await ok<{ data: Account[] }>(await caller.req('GET', '/platform/internal-accounts'), 'platform list');
      expect(Object.keys(first)).toEqual(['data']);
      expect(codes(first.data)).toEqual(['BRL', 'BTC', 'EUR', 'MXN', 'USD']);
      for (const a of first.data) {
        expect(a.customerId).toBeUndefined();
        expect(a).toMatchObject({ status: 'ACTIVE', balance: { amount: 0 } });
        expect(a.fundingPaymentInstructions.every((i) => i.isPlatformAccount)).toBe(true);
      }
      const again = await ok<{ data: Account[] }>(await caller.req('GET', '/platform/internal-accounts'), 'again');
      expect(again.data.map((a) => a.id)).toEqual(first.data.map((a) => a.id));
      const eur = await ok<{ data: Account[] }>(await caller.req('GET', '/platform/internal-accounts?currency=EUR&type=INTERNAL_FIAT'), 'filtered');
      expect(eur.data.map((a) => a.balance.currency.code)).toEqual(['EUR']);
      expect((await ok<{ data: Account[] }>(await caller.req('GET', '/platform/internal-accounts?type=INTERNAL_CRYPTO'), 'crypto')).data.map((a) => a.balance.currency.code)).toEqual(['BTC']);
    });

    it('funds a platform account in its currency: balances equal its ledger; a foreign platform’s account is unknown', async () => {
      const eur = (await ok<{ data: Account[] }>(await caller.req('GET', '/platform/internal-accounts?currency=EUR'), 'eur')).data[0]!;
      const funded = await ok<Account>(await caller.req('POST', `/sandbox/internal-accounts/${eur.id}/fund`, { amount: 50_000 }), 'fund');
      expect(funded).toMatchObject({ id: eur.id, balance: { amount: 50_000, currency: { code: 'EUR' } }, totalBalance: { amount: 50_000 } });
      expect(funded.customerId).toBeUndefined();
      await ok(await caller.req('POST', `/sandbox/internal-accounts/${eur.id}/fund`, { amount: 25 }), 'fund again');
      const after = (await ok<{ data: Account[] }>(await caller.req('GET', '/platform/internal-accounts?currency=EUR'), 'after')).data[0]!;
      const sum = (await entriesOf(t.services.store.db, eur.id)).reduce((s, e) => s + Number(e.amount), 0);
      expect([after.balance.amount, after.totalBalance.amount, sum]).toEqual([50_025, 50_025, 50_025]);
      const other = await t.newCaller();
      const foreign = await other.req('POST', `/sandbox/internal-accounts/${eur.id}/fund`, { amount: 1 });
      expect(expectErrorObject(foreign, 'error')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
    });

    it('funding a platform account and a customer’s EUR account sends INTERNAL_ACCOUNT.BALANCE_UPDATED for each, verified', { timeout: 60_000 }, async () => {
      const owner = await t.newCaller();
      const receiver = await new HoldingReceiver().start();
      receiver.holding = false;
      const worker = startWorker(t.services, t.app.log);
      try {
        receiver.trust((await ok(await owner.req('PATCH', '/config', { webhookEndpoint: receiver.url, supportedCurrencies: ['USD', 'EUR'].map(currency) }), 'config')) as never);
        const platformEur = (await ok<{ data: Account[] }>(await owner.req('GET', '/platform/internal-accounts?currency=EUR'), 'platform')).data[0]!;
        const customer = await ok(await owner.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Hooked', currencies: ['EUR'] }), 'create');
        const customerEur = (await accountsOf(owner, customer.id, '&currency=EUR'))[0]!;
        await ok(await owner.req('POST', `/sandbox/internal-accounts/${platformEur.id}/fund`, { amount: 900 }), 'fund platform');
        await ok(await owner.req('POST', `/sandbox/internal-accounts/${customerEur.id}/fund`, { amount: 400 }), 'fund customer');
        const events = () => receiver.verified.filter((d) => d.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED');
        await receiver.waitFor('two balance events', () => events().length >= 2);
        expect(receiver.unverified).toBe(0);
        const seen = events().map((d) => d.body.data as Account).map((a) => [a.id, a.customerId ?? null, a.balance.amount, a.balance.currency.code, a.fundingPaymentInstructions[0]!.isPlatformAccount]);
        expect(seen.sort()).toEqual([
          [platformEur.id, null, 900, 'EUR', true],
          [customerEur.id, customer.id, 400, 'EUR', false],
        ].sort());
      } finally {
        await worker.stop();
        await receiver.stop();
      }
    });

    it('opens no duplicates when many requests race to open them', async () => {
      const racer = await t.newCaller();
      await ok(await racer.req('PATCH', '/config', { supportedCurrencies: ['USD', 'EUR', 'MXN'].map(currency) }), 'config');
      const answers = await Promise.all(Array.from({ length: 8 }, () => racer.req('GET', '/platform/internal-accounts')));
      for (const res of answers) expect(res.statusCode, res.body).toBe(200);
      const rows = await t.services.store.db.selectFrom('platform_internal_accounts').select(['currency']).where('platform_id', '=', racer.platformId).execute();
      expect(rows.map((r) => r.currency).sort()).toEqual(['EUR', 'MXN', 'USD']);
    });

    it('keeps a removed currency\u2019s account, shows a platform only its own, and refuses an unknown parameter', async () => {
      const other = await t.newCaller();
      expect(codes((await ok<{ data: Account[] }>(await other.req('GET', '/platform/internal-accounts'), 'fresh')).data)).toEqual(['USD']);
      await ok(await other.req('PATCH', '/config', { supportedCurrencies: [currency('EUR')] }), 'config EUR');
      await ok(await other.req('GET', '/platform/internal-accounts'), 'opens EUR');
      await ok(await other.req('PATCH', '/config', { supportedCurrencies: [currency('MXN')] }), 'config MXN');
      expect(codes((await ok<{ data: Account[] }>(await other.req('GET', '/platform/internal-accounts'), 'after')).data)).toEqual(['EUR', 'MXN', 'USD']);
      const mine = (await ok<{ data: Account[] }>(await caller.req('GET', '/platform/internal-accounts'), 'mine')).data.map((a) => a.id);
      const theirs = (await ok<{ data: Account[] }>(await other.req('GET', '/platform/internal-accounts'), 'theirs')).data.map((a) => a.id);
      expect(mine.filter((id) => theirs.includes(id))).toEqual([]);
      // The production environment of the same platform has accounts of its own; the sandbox's are unknown to it.
      const production = await t.newCaller('production', caller);
      const prod = (await ok<{ data: Account[] }>(await production.req('GET', '/platform/internal-accounts'), 'production')).data.map((a) => a.id);
      expect(prod).toHaveLength(1);
      expect(mine.includes(prod[0]!)).toBe(false);
      expect(expectErrorObject(await caller.req('POST', `/sandbox/internal-accounts/${prod[0]}/fund`, { amount: 1 }), 'error')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      expect(expectErrorObject(await caller.req('GET', '/platform/internal-accounts?customerId=x'), 'error')).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      expect(expectErrorObject(await caller.req('GET', '/platform/internal-accounts?type=SAVINGS'), 'error')).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    });
  });
});
