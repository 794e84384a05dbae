import { expect, it } from 'vitest';
import { businessCustomer, createBusiness, fieldErrors } from '../helpers/owners.js';
import { describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('customers', (t) => {
  it('creates a business customer with KYB status UNVERIFIED and reads it back', async () => {
    const input = businessCustomer();
    const res = await t.caller.req('POST', '/customers', input);
    expect(res.statusCode, res.body).toBe(201);
    const customer = res.json<Record<string, unknown>>();
    expect(customer).toEqual({
      ...input,
      id: expect.stringMatching(/^Customer:[0-9a-f-]{36}$/),
      umaAddress: expect.stringMatching(/^\$c[0-9a-f]{32}@sandbox\.uma\.invalid$/),
      kybStatus: 'UNVERIFIED',
      isDeleted: false,
      createdAt: expect.any(String),
      updatedAt: customer.createdAt,
    });
    const got = await t.caller.req('GET', `/customers/${String(customer.id)}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(customer);
  });

  it('creates a sandbox individual with a plain fullName APPROVED, with a generated platformCustomerId', async () => {
    const res = await t.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith', birthDate: '1990-01-15', nationality: 'MX', phoneNumber: '+525512345678' });
    expect(res.statusCode, res.body).toBe(201);
    const c = res.json<Record<string, string>>();
    expect(c).toMatchObject({ customerType: 'INDIVIDUAL', kycStatus: 'APPROVED', fullName: 'Jane Smith', nationality: 'MX' });
    expect(c.platformCustomerId).toMatch(/^[0-9a-f-]{36}$/);
    expect(c).not.toHaveProperty('kybStatus');
  });

  it('reports schema failures and cross-field rules together', async () => {
    const errors = fieldErrors(
      await t.caller.req('POST', '/customers', {
        customerType: 'BUSINESS',
        fullName: 'Jane',
        email: 'nope',
        region: 'EU',
        currencies: ['usd'],
        extra: true,
        businessInfo: { legalName: 'Acme', incorporatedOn: '2018-02-30' },
      }),
    );
    expect(Object.fromEntries([...errors].map(([f, e]) => [f, e.constraint ?? e.message]))).toEqual({
      email: { format: 'email' },
      region: { format: 'iso3166-1-alpha-2' },
      'currencies[0]': { pattern: '^[A-Z0-9]{3,5}$' },
      extra: 'is not a recognised field',
      'businessInfo.incorporatedOn': { format: 'date' },
      'businessInfo.taxId': 'is required',
      fullName: 'applies to INDIVIDUAL customers only',
    });
    const individual = fieldErrors(await t.caller.req('POST', '/customers', { customerType: 'PERSON', businessInfo: {} }));
    expect(individual.get('customerType')?.constraint).toEqual({ enum: ['INDIVIDUAL', 'BUSINESS'] });
  });

  it('lists customers in pages with a total, filters, and hides other platforms', async () => {
    const caller = await t.newCaller();
    const ids = [await createBusiness(caller, 1), await createBusiness(caller, 2), await createBusiness(caller, 3)];
    await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'ind-1' });
    await createBusiness(t.caller, 9);
    const first = (await caller.req('GET', '/customers?limit=2&customerType=BUSINESS')).json<{ data: { id: string }[]; hasMore: boolean; nextCursor: string; totalCount: number }>();
    expect([first.data.length, first.hasMore, first.totalCount]).toEqual([2, true, 3]);
    const second = (await caller.req('GET', `/customers?limit=2&customerType=BUSINESS&cursor=${first.nextCursor}`)).json<{ data: { id: string }[]; hasMore: boolean }>();
    expect([...first.data, ...second.data].map((c) => c.id)).toEqual(ids);
    expect(second).not.toHaveProperty('nextCursor');
    // A cursor is bound to its filter.
    expect([...fieldErrors(await caller.req('GET', `/customers?limit=2&cursor=${first.nextCursor}`)).keys()]).toEqual(['cursor']);
    const byRef = (await caller.req('GET', '/customers?platformCustomerId=ind-1')).json<{ data: { customerType: string }[]; totalCount: number }>();
    expect([byRef.totalCount, byRef.data[0]!.customerType]).toEqual([1, 'INDIVIDUAL']);
    expect((await t.caller.req('GET', `/customers/${ids[0]!}`)).statusCode).toBe(404);
    expect([...fieldErrors(await caller.req('GET', '/customers?limit=0')).keys()]).toEqual(['limit']);
  });
});
