import { describe, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { createBusiness, createOwner, fieldErrors, ownerInput } from '../helpers/owners.js';
import { insertTestCustomer } from '../helpers/fixtures.js';

describeEachEngine('beneficial owners: create, get, update', (t) => {
  it('creates an owner for a business customer and reads it back', async () => {
    const customerId = await createBusiness(t.caller);
    const input = ownerInput(customerId);
    const res = await t.caller.req('POST', '/beneficial-owners', input);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const owner = res.json<Record<string, unknown>>();
    expect(owner).toEqual({
      id: expect.stringMatching(/^BeneficialOwner:[0-9a-f-]{36}$/),
      customerId,
      roles: ['UBO', 'DIRECTOR'],
      ownershipPercentage: 25,
      personalInfo: input.personalInfo,
      kycStatus: 'UNVERIFIED',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updatedAt: owner.createdAt,
    });
    const got = await t.caller.req('GET', `/beneficial-owners/${String(owner.id)}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(owner);
  });

  it('refuses an individual customer with a 400 on customerId, an unknown or foreign one with 404 USER_NOT_FOUND, a deleted one with 410', async () => {
    const individual = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const other = await t.newCaller();
    const foreign = await createBusiness(other);
    const errors = fieldErrors(await t.caller.req('POST', '/beneficial-owners', ownerInput(individual)));
    expect([...errors.keys()]).toEqual(['customerId']);
    for (const customerId of ['Customer:0190ffff-0000-7000-8000-000000000000', foreign]) {
      const res = await t.caller.req('POST', '/beneficial-owners', ownerInput(customerId));
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, code: 'USER_NOT_FOUND' });
    }
    const deleted = await createBusiness(t.caller);
    expect((await t.caller.req('DELETE', `/customers/${deleted}`)).statusCode).toBe(200);
    const gone = await t.caller.req('POST', '/beneficial-owners', ownerInput(deleted));
    expect([gone.statusCode, gone.json<{ code: string }>().code]).toEqual([410, 'CUSTOMER_DELETED']);
    // Nothing was counted for the refused owners.
    expect((await t.caller.req('GET', `/beneficial-owners?customerId=${deleted}`)).json()).toMatchObject({ data: [], totalCount: 0 });
    const list = await other.req('GET', `/beneficial-owners?customerId=${foreign}`);
    expect(list.json()).toMatchObject({ data: [], totalCount: 0 });
  });

  it('reports every invalid field of a create in one response, with constraints', async () => {
    const customerId = await createBusiness(t.caller);
    const res = await t.caller.req('POST', '/beneficial-owners', {
      customerId,
      roles: ['UBO', 'UBO', 'CEO'],
      ownershipPercentage: 101,
      nickname: 'x',
      personalInfo: {
        firstName: '',
        lastName: 'x'.repeat(101),
        birthDate: '2023-02-30',
        nationality: 'XX',
        email: 'not-an-email',
        phoneNumber: '+0123',
        address: { line1: '1 Main', postalCode: '1', country: 'ZZ', planet: 'Mars' },
        idType: 'PASSPORT',
        identifier: '1',
        countryOfIssuance: 'us',
      },
    });
    const errors = fieldErrors(res);
    expect(Object.fromEntries([...errors].map(([f, e]) => [f, e.constraint ?? null]))).toEqual({
      'roles[2]': { enum: ['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER'] },
      roles: null,
      ownershipPercentage: null,
      nickname: null,
      'personalInfo.firstName': { minLength: 1 },
      'personalInfo.lastName': { maxLength: 100 },
      'personalInfo.birthDate': { format: 'date' },
      'personalInfo.nationality': { format: 'iso3166-1-alpha-2' },
      'personalInfo.email': { format: 'email' },
      'personalInfo.phoneNumber': { pattern: '^\\+[1-9]\\d{1,14}$', format: 'e.164' },
      'personalInfo.address.country': { format: 'iso3166-1-alpha-2' },
      'personalInfo.address.planet': null,
      'personalInfo.idType': { enum: ['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID'] },
      'personalInfo.countryOfIssuance': { format: 'iso3166-1-alpha-2' },
    });
    expect(errors.get('roles')?.message).toMatch(/duplicate/);
    expect(errors.get('nickname')?.message).toMatch(/not a recognised field/);
  });

  it('reports missing required fields, a future birth date, empty roles and a non-integer percentage', async () => {
    const customerId = await createBusiness(t.caller);
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const input = ownerInput(customerId);
    const res = await t.caller.req('POST', '/beneficial-owners', {
      customerId,
      roles: [],
      ownershipPercentage: 12.5,
      personalInfo: { ...input.personalInfo, firstName: undefined, address: { line1: 'x', country: 'US' }, birthDate: tomorrow },
    });
    const errors = fieldErrors(res);
    expect([...errors.keys()].sort()).toEqual(['ownershipPercentage', 'personalInfo.address.postalCode', 'personalInfo.birthDate', 'personalInfo.firstName', 'roles'].sort());
    expect(errors.get('personalInfo.firstName')?.message).toBe('is required');
    expect(errors.get('personalInfo.birthDate')?.message).toMatch(/past/);
    expect(errors.get('ownershipPercentage')?.message).toMatch(/integer/);
    expect(errors.get('roles')?.message).toMatch(/empty/);
  });

  it('accepts the boundaries of ownershipPercentage and refuses a string number', async () => {
    const customerId = await createBusiness(t.caller);
    for (const p of [0, 100]) {
      const res = await t.caller.req('POST', '/beneficial-owners', { ...ownerInput(customerId), ownershipPercentage: p });
      expect(res.statusCode, res.body).toBe(201);
    }
    expect([...fieldErrors(await t.caller.req('POST', '/beneficial-owners', { ...ownerInput(customerId), ownershipPercentage: '50' })).keys()]).toEqual(['ownershipPercentage']);
    expect([...fieldErrors(await t.caller.req('POST', '/beneficial-owners', { ...ownerInput(customerId), ownershipPercentage: -1 })).keys()]).toEqual(['ownershipPercentage']);
  });

  it('updates only the given fields, sets updatedAt and keeps the list in step', async () => {
    const customerId = await createBusiness(t.caller);
    const owner = await createOwner(t.caller, customerId);
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.caller.req('PATCH', `/beneficial-owners/${owner.id}`, {
      ownershipPercentage: 60,
      roles: ['CONTROL_PERSON'],
      personalInfo: { lastName: 'Jones', address: { line1: '2 High St', postalCode: 'SW1A 1AA', country: 'GB' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json<Record<string, any>>();
    expect(updated.ownershipPercentage).toBe(60);
    expect(updated.roles).toEqual(['CONTROL_PERSON']);
    expect(updated.personalInfo.lastName).toBe('Jones');
    expect(updated.personalInfo.firstName).toBe(owner.personalInfo && (owner.personalInfo as any).firstName);
    expect(updated.personalInfo.address).toEqual({ line1: '2 High St', postalCode: 'SW1A 1AA', country: 'GB' });
    expect(updated.createdAt).toBe(owner.createdAt);
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(owner.createdAt));
    expect((await t.caller.req('GET', `/beneficial-owners/${owner.id}`)).json()).toEqual(updated);
    const list = (await t.caller.req('GET', `/beneficial-owners?customerId=${customerId}`)).json<{ data: unknown[] }>();
    expect(list.data).toEqual([updated]);
  });

  it('validates a PATCH like a create and leaves the owner unchanged', async () => {
    const customerId = await createBusiness(t.caller);
    const owner = await createOwner(t.caller, customerId);
    const errors = fieldErrors(
      await t.caller.req('PATCH', `/beneficial-owners/${owner.id}`, {
        roles: ['DIRECTOR', 'DIRECTOR'],
        ownershipPercentage: 200,
        customerId: 'Customer:x',
        personalInfo: { phoneNumber: '4155550192', nationality: 'USA', birthDate: '1990-13-01', middleName: '' },
      }),
    );
    expect([...errors.keys()].sort()).toEqual(
      ['customerId', 'ownershipPercentage', 'personalInfo.birthDate', 'personalInfo.middleName', 'personalInfo.nationality', 'personalInfo.phoneNumber', 'roles'].sort(),
    );
    expect(errors.get('personalInfo.phoneNumber')?.constraint).toEqual({ pattern: '^\\+[1-9]\\d{1,14}$', format: 'e.164' });
    expect(fieldErrors(await t.caller.req('PATCH', `/beneficial-owners/${owner.id}`, {})).size).toBe(1);
    expect((await t.caller.req('GET', `/beneficial-owners/${owner.id}`)).json()).toEqual(owner);
  });

  it('answers 404 for an unknown or foreign owner, on GET and PATCH', async () => {
    const customerId = await createBusiness(t.caller);
    const owner = await createOwner(t.caller, customerId);
    const other = await t.newCaller();
    for (const [caller, id] of [[t.caller, 'BeneficialOwner:0190ffff-0000-7000-8000-000000000000'], [other, owner.id]] as const) {
      const got = await caller.req('GET', `/beneficial-owners/${id}`);
      expect(got.statusCode).toBe(404);
      expect(got.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      expect((await caller.req('PATCH', `/beneficial-owners/${id}`, { ownershipPercentage: 1 })).statusCode).toBe(404);
    }
    expect((await t.caller.req('GET', `/beneficial-owners/${owner.id}`)).json()).toMatchObject({ ownershipPercentage: 25 });
  });
});

describe('beneficial owners need credentials', () => {
  describeEachEngine('auth', (t) => {
    it('refuses a request without credentials or with a bearer token', async () => {
      const none = await t.app.inject({ method: 'GET', url: '/2025-10-13/beneficial-owners?customerId=x' });
      expect(none.statusCode).toBe(401);
      const bearer = await t.caller.req('GET', '/beneficial-owners?customerId=x', undefined, { authorization: 'Bearer abc' });
      expect(bearer.statusCode).toBe(401);
      expect(bearer.json()).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    });
  });
});
