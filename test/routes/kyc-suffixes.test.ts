import { expect, it } from 'vitest';
import { expectErrorObject } from '../helpers/error-object.js';
import { businessCustomer, createOwner } from '../helpers/owners.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

describeEachEngine("Grid's sandbox magic suffixes: fullName at creation, registrationNumber at POST /verifications, owners' lastName", (t) => {
  const ctx = connectedCaller(t);

  const create = async (c: Caller, body: unknown) => {
    const res = await c.req('POST', '/customers', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const verify = (c: Caller, customerId: string) => c.req('POST', '/verifications', { customerId });
  /** Verified deliveries whose data is the resource, by type, once `types` have all arrived. */
  const deliveredFor = async (id: string, types: string[]) => {
    const mine = () => ctx.receiver.verifiedUnique().filter((d) => (d.payload?.data as { id?: string } | undefined)?.id === id);
    await ctx.receiver.waitFor(() => types.every((type) => mine().some((d) => d.payload?.type === type)));
    expect(mine().every((d) => d.verified)).toBe(true);
    return mine();
  };
  /** Every CUSTOMER.* / VERIFICATION.* event recorded for the resource, in order. */
  const recorded = async (platformId: string, id: string) =>
    (await t.services.store.db.selectFrom('webhook_events').select(['type', 'body']).where('platform_id', '=', platformId).orderBy('created_at').orderBy('id').execute())
      .filter((e) => JSON.parse(e.body).data?.id === id)
      .map((e) => e.type);

  it.each([
    ['Jane Doe 001', 'PENDING', 'CUSTOMER.KYC_PENDING'],
    ['Jane Doe 002', 'REJECTED', 'CUSTOMER.KYC_REJECTED'],
    ['Jane Doe 003', 'UNVERIFIED', undefined],
    ['Jane Doe', 'APPROVED', 'CUSTOMER.KYC_APPROVED'],
    ['Jane Doe 004', 'APPROVED', 'CUSTOMER.KYC_APPROVED'],
  ])('an individual named %s is created %s, with its webhook', async (fullName, status, type) => {
    const customer = await create(ctx.caller, { customerType: 'INDIVIDUAL', fullName, birthDate: '1990-01-15', nationality: 'US' });
    expect(customer.kycStatus).toBe(status);
    expect((await ctx.caller.req('GET', `/customers/${customer.id}`)).json()).toEqual(customer);
    expect(await recorded(ctx.caller.platformId, customer.id)).toEqual(type ? [type] : []);
    if (type) {
      const [hook] = await deliveredFor(customer.id, [type]);
      expect(hook!.payload!.data).toEqual(customer);
    }
  });

  it('creates every business UNVERIFIED, without a webhook, whatever its registration number', async () => {
    for (const registrationNumber of ['RN-001', 'RN-002', 'RN-003', 'RN-999']) {
      const b = businessCustomer();
      const customer = await create(ctx.caller, { ...b, businessInfo: { ...b.businessInfo, registrationNumber } });
      expect(customer.kybStatus).toBe('UNVERIFIED');
      expect(await recorded(ctx.caller.platformId, customer.id)).toEqual([]);
    }
  });

  it.each([
    ['RN-777', 'APPROVED', 'CUSTOMER.KYB_APPROVED'],
    ['RN-002', 'REJECTED', 'CUSTOMER.KYB_REJECTED'],
  ])('a business numbered %s is %s at once on POST /verifications, and its owners by their lastName', async (registrationNumber, status, type) => {
    const b = businessCustomer();
    // No documents, no countries of operation: a decided suffix skips the data requirements.
    const customer = await create(ctx.caller, { ...b, businessInfo: { ...b.businessInfo, registrationNumber } });
    const owners = [];
    for (const [n, lastName] of [[1, 'Smith 001'], [2, 'Smith 002'], [3, 'Smith']] as const) {
      const owner = await createOwner(ctx.caller, customer.id, n);
      owners.push((await ctx.caller.req('PATCH', `/beneficial-owners/${owner.id}`, { personalInfo: { lastName } })).json());
    }
    const res = await verify(ctx.caller, customer.id);
    expect(res.statusCode, res.body).toBe(200);
    const verification = res.json();
    expect(verification).toMatchObject({ customerId: customer.id, verificationStatus: status, errors: [] });
    expect(verification.id).toMatch(/^Verification:[0-9a-f-]{36}$/);
    const after = (await ctx.caller.req('GET', `/customers/${customer.id}`)).json();
    expect(after.kybStatus).toBe(status);
    const ownerStatuses = [];
    for (const o of owners) ownerStatuses.push((await ctx.caller.req('GET', `/beneficial-owners/${o.id}`)).json().kycStatus);
    expect(ownerStatuses).toEqual(['PENDING', 'REJECTED', 'APPROVED']);

    expect(await recorded(ctx.caller.platformId, customer.id)).toEqual([type]);
    expect(await recorded(ctx.caller.platformId, verification.id)).toEqual([`VERIFICATION.${status}`]);
    const [customerHook] = await deliveredFor(customer.id, [type]);
    expect(customerHook!.payload!.data).toEqual(after);
    const [verificationHook] = await deliveredFor(verification.id, [`VERIFICATION.${status}`]);
    expect(verificationHook!.payload!.data).toEqual(verification);

    const again = await verify(ctx.caller, customer.id);
    expect(again.statusCode).toBe(400);
    expect(expectErrorObject(again, 'decided business').code).toBe('INVALID_INPUT');
    expect(again.json().details.errors[0].field).toBe('customerId');
  });

  it.each(['RN-001', 'RN-003'])('a business numbered %s is not decided: the data requirements apply and its owners stay as they are', async (registrationNumber) => {
    const b = businessCustomer();
    const customer = await create(ctx.caller, { ...b, businessInfo: { ...b.businessInfo, registrationNumber } });
    const owner = await createOwner(ctx.caller, customer.id);
    const res = await verify(ctx.caller, customer.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().verificationStatus).toBe('RESOLVE_ERRORS');
    expect(res.json().errors.length).toBeGreaterThan(0);
    expect((await ctx.caller.req('GET', `/customers/${customer.id}`)).json().kybStatus).toBe('UNVERIFIED');
    expect((await ctx.caller.req('GET', `/beneficial-owners/${owner.id}`)).json().kycStatus).toBe('UNVERIFIED');
    expect(await recorded(ctx.caller.platformId, customer.id)).toEqual([]);
    await deliveredFor(res.json().id, ['VERIFICATION.RESOLVE_ERRORS']);
  });

  it('refuses POST /verifications with 400 for an individual already APPROVED or REJECTED at creation', async () => {
    for (const fullName of ['Jane Doe', 'Jane Doe 002']) {
      const customer = await create(ctx.caller, { customerType: 'INDIVIDUAL', fullName });
      const res = await verify(ctx.caller, customer.id);
      expect(res.statusCode, fullName).toBe(400);
      expect(expectErrorObject(res, fullName).code).toBe('INVALID_INPUT');
      expect(res.json().details.errors).toEqual([expect.objectContaining({ field: 'customerId' })]);
    }
  });

  it('gives no meaning to suffixes in production: every customer starts UNVERIFIED, and a business is checked, not decided', async () => {
    const production = await t.newCaller('production', ctx.caller);
    for (const fullName of ['Jane Doe', 'Jane Doe 002', 'Jane Doe 001']) {
      const customer = await create(production, { customerType: 'INDIVIDUAL', fullName });
      expect(customer.kycStatus).toBe('UNVERIFIED');
      expect(await recorded(production.platformId, customer.id)).toEqual([]);
    }
    const business = await create(production, businessCustomer());
    const res = await verify(production, business.id);
    expect(res.json().verificationStatus).toBe('RESOLVE_ERRORS');
    expect((await production.req('GET', `/customers/${business.id}`)).json().kybStatus).toBe('UNVERIFIED');
  });
});
