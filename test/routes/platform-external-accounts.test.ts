import { expect, it } from 'vitest';
import { eurAccount, ibanEndingIn, sparkAddress, usdAccount } from '../helpers/external-accounts.js';
import { describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('platform external accounts: /platform/external-accounts', (t) => {
  it('creates, reads, lists and deletes the platform\'s own accounts, apart from its customers\'', async () => {
    const caller = await t.newCaller();
    const customerId = (await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL' })).json().id;
    const customers = (await caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('1212') })).json();
    const usd = await caller.req('POST', '/platform/external-accounts', { ...usdAccount('1212'), platformAccountId: 'treasury' });
    expect(usd.statusCode, usd.body).toBe(201);
    expect(usd.json().customerId).toBeUndefined();
    expect(usd.json()).toMatchObject({ status: 'ACTIVE', platformAccountId: 'treasury', defaultUmaDepositAccount: false });
    const eur = (await caller.req('POST', '/platform/external-accounts', eurAccount(ibanEndingIn('121')))).json();
    // POST /customers/external-accounts without customerId makes a platform account too, as the document says.
    const viaCustomers = await caller.req('POST', '/customers/external-accounts', { currency: 'BTC', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress() } });
    expect(viaCustomers.statusCode, viaCustomers.body).toBe(201);

    const list = (await caller.req('GET', '/platform/external-accounts')).json();
    expect(list.data.map((a: { id: string }) => a.id)).toEqual([usd.json().id, eur.id, viaCustomers.json().id]);
    expect((await caller.req('GET', '/platform/external-accounts?currency=EUR')).json().data.map((a: { id: string }) => a.id)).toEqual([eur.id]);
    expect((await caller.req('GET', '/customers/external-accounts')).json().data.map((a: { id: string }) => a.id)).toEqual([customers.id]);

    expect((await caller.req('GET', `/platform/external-accounts/${usd.json().id}`)).json()).toEqual(usd.json());
    expect((await caller.req('GET', `/platform/external-accounts/${customers.id}`)).statusCode).toBe(404);
    expect((await caller.req('GET', `/customers/external-accounts/${usd.json().id}`)).statusCode).toBe(404);

    expect((await caller.req('DELETE', `/platform/external-accounts/${eur.id}`)).statusCode).toBe(204);
    expect((await caller.req('GET', `/platform/external-accounts/${eur.id}`)).json().code).toBe('REFERENCE_NOT_FOUND');
    expect((await caller.req('GET', '/platform/external-accounts')).json().totalCount).toBe(2);
  });

  it('refuses customerId and defaultUmaDepositAccount on the platform path, with every invalid field in one 400', async () => {
    const res = await t.caller.req('POST', '/platform/external-accounts', { ...usdAccount('3434'), customerId: 'Customer:x', defaultUmaDepositAccount: true, currency: 'EUR' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['currency', 'customerId', 'defaultUmaDepositAccount']);
  });

  it("keeps each platform's and each environment's accounts to itself", async () => {
    const owner = await t.newCaller();
    const account = (await owner.req('POST', '/platform/external-accounts', usdAccount('5656'))).json();
    for (const other of [await t.newCaller(), await t.newCaller('production', owner)]) {
      expect((await other.req('GET', `/platform/external-accounts/${account.id}`)).statusCode).toBe(404);
      expect((await other.req('DELETE', `/platform/external-accounts/${account.id}`)).statusCode).toBe(404);
      expect((await other.req('GET', '/platform/external-accounts')).json().totalCount).toBe(0);
      // The same identifier is no duplicate in another scope.
      expect((await other.req('POST', '/platform/external-accounts', usdAccount('5656'))).statusCode).toBe(201);
    }
  });
});
