import { beforeAll, expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { eurAccount, ibanEndingIn, usdAccount } from '../helpers/external-accounts.js';
import { injectCall, usdAccountOf } from '../helpers/fixtures.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

const FEE = { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 50, fixedFee: { amount: 100, currency: 'USD' } };

describeEachEngine('exchange rates, quotes and receiver lookups', (t) => {
  let caller: Caller;
  let customerId: string;
  let usdAccountId: string;
  let eurExternalId: string;
  let customerUma: string;
  let payeeUma: string;

  beforeAll(async () => {
    caller = await t.newCaller();
    const customer = await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'fx-1' });
    expect(customer.statusCode, customer.body).toBe(201);
    customerId = customer.json().id;
    customerUma = customer.json().umaAddress;
    const payee = await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'fx-2' });
    expect(payee.statusCode, payee.body).toBe(201);
    payeeUma = payee.json().umaAddress;
    usdAccountId = await usdAccountOf(injectCall(caller), customerId);
    const ext = await caller.req('POST', '/customers/external-accounts', { customerId, ...eurAccount(ibanEndingIn('321')) });
    expect(ext.statusCode, ext.body).toBe(201);
    eurExternalId = ext.json().id;
    const config = await caller.req('PATCH', '/config', { feeConfigs: [FEE] });
    expect(config.statusCode, config.body).toBe(200);
  });

  const quote = async (body: Record<string, unknown>, c: Caller = caller, headers: Record<string, string> = {}) => c.req('POST', '/quotes', body, headers);
  const accountToEur = (side: string, amount: number) => ({
    source: { sourceType: 'ACCOUNT', accountId: usdAccountId },
    destination: { destinationType: 'ACCOUNT', accountId: eurExternalId },
    lockedCurrencySide: side,
    lockedCurrencyAmount: amount,
  });

  it('lists a rate from USD to every fiat currency of the table, priced after the platform fee, and filters by destination', async () => {
    const all = await caller.req('GET', '/exchange-rates?sourceCurrency=USD');
    expect(all.statusCode, all.body).toBe(200);
    const codes = all.json().data.map((r: any) => r.destinationCurrency.code);
    expect(codes).toContain('EUR');
    expect(codes).toContain('VND');
    expect(codes).not.toContain('USD');
    expect(codes).not.toContain('BTC');
    const eur = await caller.req('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=MXN&sendingAmount=10000');
    const rows = eur.json().data;
    expect(rows.map((r: any) => r.destinationCurrency.code)).toEqual(['EUR', 'MXN']);
    // 1 USD = 25/27 EUR less 50 bps = 199/216; shown as USD per EUR
    expect(rows[0]).toMatchObject({ sourceCurrency: { code: 'USD', decimals: 2 }, sendingAmount: 10000, minSendingAmount: 100, maxSendingAmount: 10_000_000, destinationPaymentRail: 'SEPA_INSTANT', exchangeRate: 1.0854271357, fees: { fixed: 100, total: 150 } });
    // (10000 - 150 fee) converted: 9850 x 199/216 = 9074.8 -> 9074
    expect(rows[0].receivingAmount).toBe(9074);
  });

  it('refuses currencies without a sandbox rate in one 400 naming each parameter', async () => {
    const res = await caller.req('GET', '/exchange-rates?sourceCurrency=XYZ&destinationCurrency=BTC');
    const body = expectErrorObject(res, 'unknown currencies');
    expect(body.code).toBe('INVALID_INPUT');
    expect((body.details!.errors as any[]).map((e) => e.field)).toEqual(['sourceCurrency', 'destinationCurrency[0]']);
  });

  it('a rate the platform sets is used exactly for its corridor, and only for its platform', async () => {
    const other = await t.newCaller();
    const set = await caller.req('PUT', '/sandbox/exchange-rates/USD/MXN', { exchangeRate: '0.05' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ sourceCurrency: { code: 'USD' }, destinationCurrency: { code: 'MXN' }, exchangeRate: 0.05 });
    const mine = (await caller.req('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN&sendingAmount=1150')).json().data[0];
    // 1150 less the fee (100 + 50 bps): 1044 converted at 20 MXN per USD
    expect(mine).toMatchObject({ exchangeRate: 0.05, receivingAmount: 20880, updatedAt: set.json().updatedAt });
    const theirs = (await other.req('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN')).json().data[0];
    expect(theirs.exchangeRate).not.toBe(0.05);
    const bad = expectErrorObject(await caller.req('PUT', '/sandbox/exchange-rates/USD/XYZ', { exchangeRate: '1' }), 'unrated');
    expect(bad.code).toBe('INVALID_CURRENCY');
    for (const rate of ['0', '-1', '1e3', 'abc']) expect((await caller.req('PUT', '/sandbox/exchange-rates/USD/MXN', { exchangeRate: rate })).statusCode, rate).toBe(400);
    const production = await t.newCaller('production', caller);
    expect((await production.req('PUT', '/sandbox/exchange-rates/USD/MXN', { exchangeRate: '0.05' })).statusCode).toBe(404);
  });

  it('locks the sending side: the fee is within the total and the receiving amount rounds down', async () => {
    const res = await quote({ ...accountToEur('SENDING', 10_000), description: 'rent' });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    expect(q).toMatchObject({
      status: 'PENDING',
      source: { sourceType: 'ACCOUNT', accountId: usdAccountId },
      destination: { destinationType: 'ACCOUNT', accountId: eurExternalId },
      sendingCurrency: { code: 'USD', decimals: 2 },
      receivingCurrency: { code: 'EUR', decimals: 2 },
      totalSendingAmount: 10_000,
      totalReceivingAmount: 9074,
      exchangeRate: 1.0854271357,
      feesIncluded: 150,
      platformFeesIncluded: 150,
    });
    expect(q.id).toMatch(/^Quote:/);
    expect(q.transactionId).toMatch(/^Transaction:/);
    expect(q.paymentInstructions).toBeUndefined();
    expect(Date.parse(q.expiresAt) - Date.parse(q.createdAt)).toBe(5 * 60 * 1000);
    expect((await caller.req('GET', `/quotes/${q.id}`)).json()).toEqual(q);
  });

  it('locks the receiving side: the fewest dollars that deliver it, plus the fee', async () => {
    const q = (await quote(accountToEur('RECEIVING', 9200))).json();
    // 9200 x 216/199 = 9985.93 -> 9986 converted; fee 100 + 49.93 -> 150
    expect(q).toMatchObject({ totalReceivingAmount: 9200, totalSendingAmount: 10_136, feesIncluded: 150 });
  });

  it('quotes to every sandbox UMA address in its currency, and to a customer of the platform', async () => {
    const cases: [string, string][] = [
      ['$success.usd@sandbox.uma.money', 'USD'],
      ['$success.eur@sandbox.uma.money', 'EUR'],
      ['$success.mxn@sandbox.uma.money', 'MXN'],
      ['$pending.long.usd@sandbox.uma.money', 'USD'],
      ['$fail.compliance.usd@sandbox.uma.money', 'USD'],
      [payeeUma, 'USD'],
    ];
    for (const [umaAddress, currency] of cases) {
      const res = await quote({ source: { sourceType: 'ACCOUNT', accountId: usdAccountId }, destination: { destinationType: 'UMA_ADDRESS', umaAddress }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000 });
      expect(res.statusCode, `${umaAddress}: ${res.body}`).toBe(201);
      expect(res.json().receivingCurrency.code, umaAddress).toBe(currency);
    }
    const usd = (await quote({ source: { sourceType: 'ACCOUNT', accountId: usdAccountId }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.uma.money', currency: 'USD' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000 })).json();
    // Within one currency: rate 1, no spread; only the platform's fee (100 + 50 bps of 4875)
    expect(usd).toMatchObject({ exchangeRate: 1, totalSendingAmount: 5000, totalReceivingAmount: 4875, feesIncluded: 125 });
  });

  it('real-time funding carries payment instructions in the sending currency', async () => {
    const res = await quote({ source: { sourceType: 'REALTIME_FUNDING', customerId, currency: 'USD' }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.money' }, lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 100_000 });
    expect(res.statusCode, res.body).toBe(201);
    const q = res.json();
    expect(q.source).toEqual({ sourceType: 'REALTIME_FUNDING', customerId, currency: 'USD' });
    expect(q.paymentInstructions.length).toBeGreaterThan(0);
    expect(q.paymentInstructions[0]).toMatchObject({ isPlatformAccount: false, accountOrWalletInfo: { accountType: expect.any(String) } });
  });

  it('refuses what it cannot quote with the document\'s codes', async () => {
    const base = { source: { sourceType: 'ACCOUNT', accountId: usdAccountId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000 };
    const unknown = expectErrorObject(
      await quote({ source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:0194f5b3-0000-7000-8000-000000000000' }, destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:0194f5b3-0000-7000-8000-000000000000' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1 }),
      'unknown ids',
    );
    expect(unknown.code).toBe('INVALID_INPUT');
    expect((unknown.details!.errors as any[]).map((e) => e.field).sort()).toEqual(['destination.accountId', 'source.accountId']);
    const invalidAndUnknown = expectErrorObject(await quote({ ...base, source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:0194f5b3-0000-7000-8000-000000000000' }, destination: { destinationType: 'ACCOUNT', accountId: eurExternalId }, lockedCurrencyAmount: -5 }), 'invalid and unknown');
    expect((invalidAndUnknown.details!.errors as any[]).map((e) => e.field).sort()).toEqual(['lockedCurrencyAmount', 'source.accountId']);
    expect(expectErrorObject(await quote({ ...base, destination: { destinationType: 'UMA_ADDRESS', umaAddress: 'not-an-address' } }), 'malformed').code).toBe('INVALID_UMA_ADDRESS');
    expect(expectErrorObject(await quote({ ...base, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$non.existent.usd@sandbox.uma.money' } }), 'no receiver').code).toBe('UMA_NOT_FOUND');
    expect(expectErrorObject(await quote({ ...base, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money', currency: 'MXN' } }), 'wrong currency').code).toBe('INVALID_CURRENCY');
    expect(expectErrorObject(await quote({ ...base, source: { sourceType: 'REALTIME_FUNDING', currency: 'XYZ' }, destination: { destinationType: 'ACCOUNT', accountId: eurExternalId } }), 'unrated').code).toBe('INVALID_CURRENCY');
    expect(expectErrorObject(await quote({ ...accountToEur('SENDING', 150) }), 'too small').code).toBe('AMOUNT_OUT_OF_RANGE');
    expect(expectErrorObject(await quote({ ...accountToEur('RECEIVING', 9_000_000_000) }), 'too large').code).toBe('AMOUNT_OUT_OF_RANGE');
    // A customer's own UMA address in the source account's currency pays the source itself.
    const self = expectErrorObject(await quote({ ...base, destination: { destinationType: 'UMA_ADDRESS', umaAddress: customerUma, currency: 'USD' } }), 'own address');
    expect((self.details!.errors as any[]).map((e) => e.field)).toEqual(['destination.umaAddress']);
  });

  it('the authorization operations answer 501 until they are built', async () => {
    const q = (await quote(accountToEur('SENDING', 10_000))).json();
    for (const path of ['authorize', 'authorize/resend']) {
      const body = expectErrorObject(await caller.req('POST', `/quotes/${q.id}/${path}`, {}), path);
      expect(body.code).toBe('NOT_IMPLEMENTED');
    }
  });

  it('a quote not executed by expiresAt reads EXPIRED on the platform clock', async () => {
    const q = (await quote(accountToEur('SENDING', 10_000))).json();
    const advance = await caller.req('POST', '/sandbox/clock/advance', { seconds: 299 });
    expect(advance.statusCode, advance.body).toBe(200);
    expect((await caller.req('GET', `/quotes/${q.id}`)).json().status).toBe('PENDING');
    await caller.req('POST', '/sandbox/clock/advance', { seconds: 1 });
    const expired = (await caller.req('GET', `/quotes/${q.id}`)).json();
    expect(expired).toEqual({ ...q, status: 'EXPIRED' });
  });

  it('a quote moves no money: the funded source keeps its balance, equal to the sum of its ledger entries', async () => {
    const funded = await caller.req('POST', `/sandbox/internal-accounts/${usdAccountId}/fund`, { amount: 50_000 });
    expect(funded.statusCode, funded.body).toBe(200);
    const before = (await caller.req('GET', `/customers/internal-accounts?customerId=${customerId}&currency=USD`)).json().data[0];
    expect((await quote(accountToEur('SENDING', 20_000))).statusCode).toBe(201);
    const after = (await caller.req('GET', `/customers/internal-accounts?customerId=${customerId}&currency=USD`)).json().data[0];
    expect(after.balance).toEqual(before.balance);
    const entries = await entriesOf(t.services.store.db, usdAccountId);
    expect(entries.reduce((sum, e) => sum + Number(e.amount), 0)).toBe(after.balance.amount);
  });

  it('refuses a sandbox rate within one currency, and a sending amount too large to convert exactly', async () => {
    const same = expectErrorObject(await caller.req('PUT', '/sandbox/exchange-rates/USD/USD', { exchangeRate: '2' }), 'same currency');
    expect((same.details!.errors as any[]).map((e) => e.field)).toEqual(['destinationCurrency']);
    const huge = expectErrorObject(await caller.req('GET', '/exchange-rates?sourceCurrency=BTC&destinationCurrency=IDR&sendingAmount=9000000000000000'), 'huge');
    expect(huge.code).toBe('AMOUNT_OUT_OF_RANGE');
  });

  it('the same Idempotency-Key answers the first quote again; another platform cannot read it', async () => {
    const key = { 'idempotency-key': 'quote-once' };
    const first = await quote(accountToEur('SENDING', 20_000), caller, key);
    const again = await quote(accountToEur('SENDING', 20_000), caller, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const other = await t.newCaller();
    expect(expectErrorObject(await other.req('GET', `/quotes/${first.json().id}`), 'foreign').code).toBe('QUOTE_NOT_FOUND');
    const production = await t.newCaller('production', caller);
    expect(expectErrorObject(await production.req('GET', `/quotes/${first.json().id}`), 'production scope').code).toBe('QUOTE_NOT_FOUND');
    expect(expectErrorObject(await quote(accountToEur('SENDING', 20_000), other), 'foreign accounts').code).toBe('INVALID_INPUT');
  });

  it('looks up each sandbox UMA address and an external account with their currencies, estimated rates and limits', async () => {
    const expected: [string, string][] = [
      ['$success.usd@sandbox.uma.money', 'USD'],
      ['$success.eur@sandbox.uma.money', 'EUR'],
      ['$success.mxn@sandbox.uma.money', 'MXN'],
      ['$pending.long.usd@sandbox.uma.money', 'USD'],
      ['$fail.compliance.usd@sandbox.uma.money', 'USD'],
    ];
    for (const [address, currency] of expected) {
      const res = await caller.req('GET', `/receiver/uma/${encodeURIComponent(address)}?customerId=${encodeURIComponent(customerId)}`);
      expect(res.statusCode, `${address}: ${res.body}`).toBe(200);
      const body = res.json();
      expect(body.receiverUmaAddress).toBe(address);
      expect(body.lookupId).toMatch(/^LookupRequest:/);
      expect(body.supportedCurrencies).toHaveLength(1);
      expect(body.supportedCurrencies[0]).toMatchObject({ currency: { code: currency }, estimatedExchangeRate: expect.any(Number), min: expect.any(Number), max: expect.any(Number) });
    }
    expect(expectErrorObject(await caller.req('GET', `/receiver/uma/${encodeURIComponent('$non.existent.usd@sandbox.uma.money')}`), 'no receiver').code).toBe('UMA_NOT_FOUND');
    expect(expectErrorObject(await caller.req('GET', '/receiver/uma/nobody'), 'malformed').code).toBe('INVALID_UMA_ADDRESS');
    expect(expectErrorObject(await caller.req('GET', `/receiver/uma/${encodeURIComponent('$success.usd@sandbox.uma.money')}?customerId=Customer:0194f5b3-0000-7000-8000-000000000000`), 'unknown sender').code).toBe('INVALID_INPUT');

    const account = await caller.req('GET', `/receiver/external-account/${eurExternalId}`);
    expect(account.statusCode, account.body).toBe(200);
    expect(account.json()).toMatchObject({ accountId: eurExternalId, supportedCurrencies: [{ currency: { code: 'EUR' }, estimatedExchangeRate: 1.0854271357, min: 93, max: 9_259_259 }] });
    const usdExt = await caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('4400012399') });
    const other = await t.newCaller();
    expect(expectErrorObject(await other.req('GET', `/receiver/external-account/${usdExt.json().id}`), 'foreign').code).toBe('REFERENCE_NOT_FOUND');
  });
});
