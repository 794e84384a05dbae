import { Ajv } from 'ajv';
import { expect, it } from 'vitest';
import { pageSchema } from '../../src/schemas/common.js';
import { CustomerSchema } from '../../src/schemas/customers.js';
import { businessCustomer, fieldErrors } from '../helpers/owners.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

const checkCustomer = new Ajv({ strict: false, validateFormats: false }).compile(CustomerSchema);
const checkPage = new Ajv({ strict: false, validateFormats: false }).compile(pageSchema(CustomerSchema, 'page'));

type Json = Record<string, unknown>;

/** Requests shaped like the interface document's examples (our own values). */
const examples = {
  business: {
    customerType: 'BUSINESS',
    platformCustomerId: 'biz-harbor-7',
    region: 'US',
    currencies: ['USD', 'USDC'],
    email: 'treasury@harbor.example',
    phoneNumber: '+12065550100',
    businessInfo: {
      legalName: 'Harbor Freight Lines Inc.',
      doingBusinessAs: 'Harbor',
      country: 'US',
      registrationNumber: '9912034',
      incorporatedOn: '2016-09-01',
      entityType: 'CORPORATION',
      taxId: '91-7654321',
      countriesOfOperation: ['US', 'CA'],
      businessType: 'TRANSPORTATION_AND_WAREHOUSING',
      purposeOfAccount: 'SUPPLIER_PAYMENTS',
      sourceOfFunds: 'Revenue from freight contracts',
      expectedMonthlyTransactionCount: 'COUNT_10_TO_100',
      expectedMonthlyTransactionVolume: 'VOLUME_10K_TO_100K',
      expectedRecipientJurisdictions: ['US', 'CA'],
      naicsCode: '484121',
      sourceOfFundsCategories: ['OPERATING_REVENUE'],
      expectedCounterpartyCountries: ['CA'],
      primaryContactFirstName: 'Rosa',
      primaryContactLastName: 'Parks',
    },
    address: { line1: '400 Pier Way', line2: 'Floor 2', city: 'Tacoma', state: 'WA', postalCode: '98402', country: 'US' },
    endUserTermsConsent: { acceptedAt: '2025-10-01T12:00:00Z', ipAddress: '198.51.100.7', termsVersion: 'V1', acceptanceMethod: 'CHECKBOX' },
  },
  individual: {
    customerType: 'INDIVIDUAL',
    platformCustomerId: 'ind-31ab',
    region: 'US',
    currencies: ['USD', 'USDC'],
    fullName: 'Grace Hopper',
    birthDate: '1986-12-09',
    nationality: 'US',
    email: 'grace@example.com',
    phoneNumber: '+14155550111',
  },
  individualRegionOnly: { customerType: 'INDIVIDUAL', platformCustomerId: 'ind-77c0', region: 'MX', fullName: 'Lucía Fernández', birthDate: '1991-04-30', nationality: 'MX', phoneNumber: '+525598765432' },
  individualCurrenciesOnly: { customerType: 'INDIVIDUAL', platformCustomerId: 'ind-09de', currencies: ['BRL'], fullName: 'João Souza', birthDate: '1979-02-11', nationality: 'BR', phoneNumber: '+5521987651234' },
};

const patchExamples = {
  individual: {
    customerType: 'INDIVIDUAL',
    fullName: 'Grace B. Hopper',
    birthDate: '1986-12-10',
    currencies: ['USD', 'EUR', 'USDC'],
    address: { line1: '12 Pine St', city: 'Portland', state: 'OR', postalCode: '97204', country: 'US' },
  },
  business: {
    customerType: 'BUSINESS',
    currencies: ['USD', 'USDC'],
    businessInfo: { legalName: 'Harbor Freight Lines Holdings LLC', registrationNumber: 'BRN-5550001', taxId: 'EIN-99-0000001' },
    address: { line1: '1 Harbor Plaza', city: 'Seattle', state: 'WA', postalCode: '98104', country: 'US' },
  },
};

async function create(caller: Caller, body: unknown): Promise<Json & { id: string; umaAddress: string; createdAt: string; updatedAt: string }> {
  const res = await caller.req('POST', '/customers', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function expectValidCustomer(c: unknown) {
  expect(checkCustomer(c), JSON.stringify(checkCustomer.errors)).toBe(true);
  // The fields the interface's Customer marks required.
  expect(c).toEqual(expect.objectContaining({ umaAddress: expect.any(String), platformCustomerId: expect.any(String), customerType: expect.any(String) }));
}

const errorOf = (res: { statusCode: number; json<T>(): T }) => [res.statusCode, res.json<{ code: string }>().code];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachEngine('customers as the interface has them', (t) => {
  it("accepts the document's example create requests and returns every field it stores", async () => {
    const caller = await t.newCaller();
    expect(CustomerSchema.required).toEqual(expect.arrayContaining(['umaAddress', 'platformCustomerId', 'customerType']));
    const business = await create(caller, examples.business);
    expectValidCustomer(business);
    expect(business).toEqual({
      ...examples.business,
      id: expect.stringMatching(/^Customer:/),
      umaAddress: expect.stringMatching(/^\$c[0-9a-f]{32}@sandbox\.uma\.invalid$/),
      kybStatus: 'UNVERIFIED',
      isDeleted: false,
      createdAt: expect.any(String),
      updatedAt: business.createdAt,
    });
    expect((await caller.req('GET', `/customers/${business.id}`)).json()).toEqual(business);
    for (const input of [examples.individual, examples.individualRegionOnly, examples.individualCurrenciesOnly]) {
      const c = await create(caller, input);
      expectValidCustomer(c);
      // A sandbox individual without a magic fullName suffix is approved at creation.
      expect(c).toMatchObject({ ...input, kycStatus: 'APPROVED', isDeleted: false });
    }
  });

  it('accepts every entity type of the interface, a business without address, and the individual identity and due-diligence fields', async () => {
    const caller = await t.newCaller();
    for (const entityType of ['PUBLICLY_LISTED_COMPANY', 'TRUST', 'PRIVATE_FOUNDATION', 'CHARITY', 'OTHER']) {
      const { address: _address, ...input } = businessCustomer();
      const c = await create(caller, { ...input, businessInfo: { ...input.businessInfo, entityType } });
      expect(c).not.toHaveProperty('address');
      expect(c.businessInfo).toMatchObject({ entityType });
    }
    const individual = {
      customerType: 'INDIVIDUAL',
      fullName: 'Ada King',
      address: { line1: '1 Main St', postalCode: '10001', country: 'US' },
      idType: 'SSN',
      identifier: '123-45-6789',
      countryOfIssuance: 'US',
      sourceOfFundsCategories: ['SALARY', 'OTHER'],
      sourceOfFundsOtherDescription: 'Prize money',
      sourceOfWealthCategories: ['INVESTMENTS'],
      purposeOfAccount: 'P2P_TRANSFERS',
      expectedMonthlyTransactionCount: 'COUNT_UNDER_10',
      expectedMonthlyTransactionVolume: 'VOLUME_UNDER_10K',
      annualIncomeRange: 'RANGE_100K_250K',
      netWorthRange: 'RANGE_500K_1M',
      pepStatus: 'NONE',
    };
    const c = await create(caller, individual);
    expectValidCustomer(c);
    const { identifier: _identifier, ...returned } = individual;
    expect(c).toMatchObject(returned);
    // The identifier is write-only: never in a response.
    expect(c).not.toHaveProperty('identifier');
    expect((await caller.req('GET', `/customers/${c.id}`)).json()).not.toHaveProperty('identifier');
    // The statuses are the service's: a request may carry them, they change nothing.
    expect(await create(caller, { customerType: 'INDIVIDUAL', fullName: 'Jane Doe 003', kycStatus: 'APPROVED' })).toMatchObject({ kycStatus: 'UNVERIFIED' });
    expect(await create(caller, { customerType: 'INDIVIDUAL', fullName: 'Jane Doe', kycStatus: 'REJECTED' })).toMatchObject({ kycStatus: 'APPROVED' });
  });

  it('keeps refusing unknown fields and invalid values, at any depth', async () => {
    const errors = fieldErrors(
      await t.caller.req('POST', '/customers', {
        ...examples.business,
        platformCustomerId: 'refused-1',
        nickname: 'x',
        businessInfo: { ...examples.business.businessInfo, naicsCode: '5415111', businessType: 'SHIPPING', founders: 2 },
        endUserTermsConsent: { ...examples.business.endUserTermsConsent, acceptanceMethod: 'NOD', ipAddress: 'x'.repeat(46) },
        idType: 'SSN',
      }),
    );
    expect(Object.fromEntries([...errors].map(([f, e]) => [f, e.constraint ?? e.message]))).toEqual({
      nickname: 'is not a recognised field',
      'businessInfo.founders': 'is not a recognised field',
      'businessInfo.naicsCode': { pattern: '^\\d{2,6}$' },
      'businessInfo.businessType': expect.objectContaining({ enum: expect.arrayContaining(['INFORMATION']) }),
      'endUserTermsConsent.acceptanceMethod': { enum: ['CHECKBOX', 'CLICK_TO_ACCEPT'] },
      'endUserTermsConsent.ipAddress': { maxLength: 45 },
      idType: 'applies to INDIVIDUAL customers only',
    });
    const individual = fieldErrors(await t.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', idType: 'EIN', identifier: '123456789', countryOfIssuance: 'MX' }));
    expect([...individual.keys()].sort()).toEqual(['countryOfIssuance', 'idType', 'identifier']);
    expect([...fieldErrors(await t.caller.req('POST', '/customers', { customerType: 'BUSINESS', address: examples.business.address })).keys()]).toEqual(['businessInfo']);
    // An individual's OTHER needs its description, on creation and after a change.
    const other = { customerType: 'INDIVIDUAL', sourceOfFundsCategories: ['SALARY', 'OTHER'], sourceOfWealthCategories: ['OTHER'], purposeOfAccount: 'OTHER' };
    expect([...fieldErrors(await t.caller.req('POST', '/customers', other)).keys()].sort()).toEqual(['purposeOfAccountOtherDescription', 'sourceOfFundsOtherDescription', 'sourceOfWealthOtherDescription']);
    const described = await create(t.caller, { customerType: 'INDIVIDUAL', purposeOfAccount: 'OTHER', purposeOfAccountOtherDescription: 'Family budget' });
    expect([...fieldErrors(await t.caller.req('PATCH', `/customers/${described.id}`, { customerType: 'INDIVIDUAL', sourceOfWealthCategories: ['OTHER'] })).keys()]).toEqual(['sourceOfWealthOtherDescription']);
    expect((await t.caller.req('PATCH', `/customers/${described.id}`, { customerType: 'INDIVIDUAL', purposeOfAccount: 'P2P_TRANSFERS' })).statusCode).toBe(200);
  });

  it("assigns a UMA address on the platform's umaDomain, stores a given one in lower case, and refuses a malformed one with INVALID_UMA_ADDRESS", async () => {
    const caller = await t.newCaller();
    expect((await caller.req('PATCH', '/config', { umaDomain: 'pay.example.com' })).statusCode).toBe(200);
    const assigned = await create(caller, { customerType: 'INDIVIDUAL' });
    expect(assigned.umaAddress).toMatch(/^\$c[0-9a-f]{32}@pay\.example\.com$/);
    expect((await create(caller, { customerType: 'INDIVIDUAL', umaAddress: '$Grace.Hopper@Pay.Example.com' })).umaAddress).toBe('$grace.hopper@pay.example.com');
    for (const umaAddress of ['grace@pay.example.com', '$grace', '$gr ace@pay.example.com', '$grace@localhost', '$@pay.example.com']) {
      const res = await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress });
      expect(errorOf(res), umaAddress).toEqual([400, 'INVALID_UMA_ADDRESS']);
      expect(res.json()).toMatchObject({ details: { errors: [{ field: 'umaAddress' }] } });
    }
    // With other invalid fields it is one entry of the INVALID_INPUT list.
    expect([...fieldErrors(await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress: 'nope', email: 'nope' })).keys()].sort()).toEqual(['email', 'umaAddress']);
  });

  it('refuses a second active customer with the same platformCustomerId (409 CONFLICT) or UMA address (409 UMA_ADDRESS_EXISTS), per platform', async () => {
    const caller = await t.newCaller();
    const first = await create(caller, { customerType: 'INDIVIDUAL', platformCustomerId: 'dup-1', umaAddress: '$dup@uma.example.com' });
    expect(errorOf(await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'dup-1' }))).toEqual([409, 'CONFLICT']);
    expect(errorOf(await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', umaAddress: '$DUP@uma.example.com' }))).toEqual([409, 'UMA_ADDRESS_EXISTS']);
    // Another platform may use both.
    await create(await t.newCaller(), { customerType: 'INDIVIDUAL', platformCustomerId: 'dup-1', umaAddress: '$dup@uma.example.com' });
    // Once the first is deleted, both are free again; the deleted one is still there.
    expect((await caller.req('DELETE', `/customers/${first.id}`)).statusCode).toBe(200);
    const second = await create(caller, { customerType: 'INDIVIDUAL', platformCustomerId: 'dup-1', umaAddress: '$dup@uma.example.com' });
    const all = (await caller.req('GET', '/customers?platformCustomerId=dup-1&isIncludingDeleted=true')).json<{ data: Json[] }>();
    expect(all.data.map((c) => [c.id, c.isDeleted])).toEqual([
      [first.id, true],
      [second.id, false],
    ]);
  });

  it('lets exactly one of many concurrent creates with the same platformCustomerId or UMA address win', async () => {
    const caller = await t.newCaller();
    for (const clash of [{ platformCustomerId: 'race-1' }, { umaAddress: '$race@uma.example.com' }]) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', ...clash })));
      const codes = answers.map((r) => (r.statusCode === 201 ? 201 : errorOf(r).join(' '))).sort();
      expect(codes).toEqual([201, ...Array(7).fill(`409 ${'platformCustomerId' in clash ? 'CONFLICT' : 'UMA_ADDRESS_EXISTS'}`)]);
    }
    expect((await caller.req('GET', '/customers')).json()).toMatchObject({ totalCount: 2 });
  });

  it("changes a customer as the document's PATCH examples do, with the rules of creation", async () => {
    const caller = await t.newCaller();
    const person = await create(caller, examples.individual);
    await sleep(5);
    const res = await caller.req('PATCH', `/customers/${person.id}`, patchExamples.individual);
    expect(res.statusCode, res.body).toBe(200);
    const changed = res.json<Json & { updatedAt: string }>();
    expectValidCustomer(changed);
    expect(changed).toEqual({ ...person, ...patchExamples.individual, updatedAt: expect.any(String) });
    expect(Date.parse(changed.updatedAt)).toBeGreaterThan(Date.parse(person.updatedAt));
    expect((await caller.req('GET', `/customers/${person.id}`)).json()).toEqual(changed);

    const business = await create(caller, examples.business);
    const biz = (await caller.req('PATCH', `/customers/${business.id}`, patchExamples.business)).json<Json>();
    expectValidCustomer(biz);
    // businessInfo changes field by field; the address as a whole.
    expect(biz.businessInfo).toEqual({ ...examples.business.businessInfo, ...patchExamples.business.businessInfo });
    expect(biz.address).toEqual(patchExamples.business.address);
    expect(biz).toMatchObject({ platformCustomerId: examples.business.platformCustomerId, region: 'US', email: examples.business.email });

    const uma = (await caller.req('PATCH', `/customers/${person.id}`, { customerType: 'INDIVIDUAL', umaAddress: '$grace@uma.example.com' })).json<Json>();
    expect(uma.umaAddress).toBe('$grace@uma.example.com');
    expect((await caller.req('GET', '/customers?umaAddress=$grace@uma.example.com')).json()).toMatchObject({ totalCount: 1, data: [{ id: person.id }] });
    expect(errorOf(await caller.req('PATCH', `/customers/${business.id}`, { customerType: 'BUSINESS', umaAddress: '$GRACE@uma.example.com' }))).toEqual([409, 'UMA_ADDRESS_EXISTS']);
    // Its own address again is no clash.
    expect((await caller.req('PATCH', `/customers/${person.id}`, { customerType: 'INDIVIDUAL', umaAddress: '$grace@uma.example.com' })).statusCode).toBe(200);
  });

  it('refuses a change of the wrong type, of both contacts at once, of fields it does not define or of invalid values', async () => {
    const caller = await t.newCaller();
    const business = await create(caller, examples.business);
    const individual = await create(caller, examples.individual);
    const keys = async (id: string, body: unknown) => [...fieldErrors(await caller.req('PATCH', `/customers/${id}`, body)).keys()].sort();
    expect(await keys(business.id, patchExamples.individual)).toEqual(['customerType']);
    expect(await keys(individual.id, { customerType: 'INDIVIDUAL', email: 'grace@new.example', phoneNumber: '+14155550999' })).toEqual(['phoneNumber']);
    expect(await keys(individual.id, { customerType: 'INDIVIDUAL', platformCustomerId: 'x', region: 'US' })).toEqual(['platformCustomerId', 'region']);
    expect(await keys(business.id, { customerType: 'BUSINESS', businessInfo: { taxId: '', motto: 'x' }, email: 'no' })).toEqual(['businessInfo.motto', 'businessInfo.taxId', 'email']);
    expect(await keys(individual.id, { fullName: 'x' })).toEqual(['customerType']);
    expect(errorOf(await caller.req('PATCH', `/customers/${individual.id}`, { customerType: 'INDIVIDUAL', umaAddress: 'grace' }))).toEqual([400, 'INVALID_UMA_ADDRESS']);
    // Nothing changed.
    expect((await caller.req('GET', `/customers/${business.id}`)).json()).toEqual(business);
    expect((await caller.req('GET', `/customers/${individual.id}`)).json()).toEqual(individual);
  });

  it('deletes softly: readable with isDeleted, out of the lists unless isIncludingDeleted, 410 CUSTOMER_DELETED afterwards', async () => {
    const caller = await t.newCaller();
    const kept = await create(caller, { customerType: 'INDIVIDUAL' });
    const gone = await create(caller, { customerType: 'INDIVIDUAL' });
    const res = await caller.req('DELETE', `/customers/${gone.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const deleted = res.json<Json>();
    expectValidCustomer(deleted);
    expect(deleted).toEqual({ ...gone, isDeleted: true, updatedAt: expect.any(String) });
    expect((await caller.req('GET', `/customers/${gone.id}`)).json()).toEqual(deleted);
    const ids = async (query: string) => (await caller.req('GET', `/customers${query}`)).json<{ data: Json[] }>().data.map((c) => c.id);
    expect(await ids('')).toEqual([kept.id]);
    expect(await ids('?isIncludingDeleted=false')).toEqual([kept.id]);
    expect(await ids('?isIncludingDeleted=true')).toEqual([kept.id, gone.id]);
    expect(errorOf(await caller.req('DELETE', `/customers/${gone.id}`))).toEqual([410, 'CUSTOMER_DELETED']);
    expect(errorOf(await caller.req('PATCH', `/customers/${gone.id}`, { customerType: 'INDIVIDUAL', fullName: 'x' }))).toEqual([410, 'CUSTOMER_DELETED']);
  });

  it('answers 404 USER_NOT_FOUND for an unknown or foreign customer on every customer operation', async () => {
    const foreign = await create(await t.newCaller(), { customerType: 'INDIVIDUAL' });
    for (const id of [foreign.id, 'Customer:0190ffff-0000-7000-8000-000000000000', 'nonsense']) {
      for (const [method, body] of [['GET'], ['PATCH', { customerType: 'INDIVIDUAL', fullName: 'x' }], ['DELETE']] as const) {
        const res = await t.caller.req(method, `/customers/${encodeURIComponent(id)}`, body);
        expect(errorOf(res), `${method} ${id}`).toEqual([404, 'USER_NOT_FOUND']);
      }
    }
    expect((await t.caller.req('GET', `/customers/${foreign.id}`)).json()).toMatchObject({ status: 404, message: expect.stringContaining(foreign.id) });
  });

  it('filters the list by every documented parameter', async () => {
    const caller = await t.newCaller();
    const a = await create(caller, { customerType: 'INDIVIDUAL', region: 'US', currencies: ['USD', 'USDC'], umaAddress: '$a@uma.example.com' });
    await sleep(5);
    const b = await create(caller, { ...businessCustomer(), region: 'MX', currencies: ['MXN'], platformCustomerId: 'b-ref' });
    await sleep(5);
    const c = await create(caller, { customerType: 'INDIVIDUAL', currencies: ['USDC'] });
    await sleep(5);
    const touched = (await caller.req('PATCH', `/customers/${a.id}`, { customerType: 'INDIVIDUAL', fullName: 'A' })).json<{ updatedAt: string }>();
    const ids = async (query: string) => {
      const res = await caller.req('GET', `/customers?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<{ data: { id: string }[]; totalCount: number }>();
      expect(checkPage(page), JSON.stringify(checkPage.errors)).toBe(true);
      expect(page.totalCount).toBe(page.data.length);
      return page.data.map((x) => x.id);
    };
    const q = encodeURIComponent;
    expect(await ids('')).toEqual([a.id, b.id, c.id]);
    expect(await ids(`createdAfter=${q(b.createdAt)}`)).toEqual([b.id, c.id]);
    expect(await ids(`createdBefore=${q(b.createdAt)}`)).toEqual([a.id, b.id]);
    expect(await ids(`createdAfter=${q(b.createdAt)}&createdBefore=${q(b.createdAt)}`)).toEqual([b.id]);
    expect(await ids(`updatedAfter=${q(touched.updatedAt)}`)).toEqual([a.id]);
    expect(await ids(`updatedBefore=${q(c.updatedAt)}`)).toEqual([b.id, c.id]);
    expect(await ids('region=MX')).toEqual([b.id]);
    expect(await ids('currency=USDC')).toEqual([a.id, c.id]);
    expect(await ids('currency=USD')).toEqual([a.id]);
    expect(await ids(`umaAddress=${q('$A@UMA.example.com')}`)).toEqual([a.id]);
    expect(await ids('platformCustomerId=b-ref')).toEqual([b.id]);
    expect(await ids('customerType=INDIVIDUAL&currency=USDC')).toEqual([a.id, c.id]);
    expect(await ids('customerType=BUSINESS&region=US')).toEqual([]);
    const bad = fieldErrors(await caller.req('GET', '/customers?createdAfter=yesterday&currency=usd&region=XX&isIncludingDeleted=maybe'));
    expect([...bad.keys()].sort()).toEqual(['createdAfter', 'currency', 'isIncludingDeleted', 'region']);
    // A cursor is bound to its filters.
    const first = (await caller.req('GET', '/customers?limit=1&currency=USDC')).json<{ nextCursor: string }>();
    expect((await caller.req('GET', `/customers?limit=1&currency=USDC&cursor=${first.nextCursor}`)).json()).toMatchObject({ data: [{ id: c.id }], hasMore: false });
    expect([...fieldErrors(await caller.req('GET', `/customers?limit=1&currency=USD&cursor=${first.nextCursor}`)).keys()]).toEqual(['cursor']);
  });
});
