import { expect } from 'vitest';
import type { NewBeneficialOwner } from '../../src/domain/customers/beneficial-owners.js';
import type { Caller } from './test-app.js';

export const businessCustomer = (n = 1) => ({
  customerType: 'BUSINESS',
  platformCustomerId: `biz-${n}-${Math.random().toString(36).slice(2, 8)}`,
  region: 'US',
  email: 'finance@acme.example',
  businessInfo: { legalName: `Acme ${n} LLC`, incorporatedOn: '2018-03-14', taxId: '47-1234567', entityType: 'LLC', country: 'US' },
  address: { line1: '123 Market Street', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
});

export const ownerInput = (customerId: string, n = 1): NewBeneficialOwner & { personalInfo: { email: string } } => ({
  customerId,
  roles: ['UBO', 'DIRECTOR'],
  ownershipPercentage: 25,
  personalInfo: {
    firstName: `Jane${n}`,
    lastName: 'Smith',
    birthDate: '1978-06-15',
    nationality: 'US',
    email: `jane${n}@acme.example`,
    phoneNumber: '+14155550192',
    address: { line1: '1 Main St', postalCode: '94105', country: 'US' },
    idType: 'SSN',
    identifier: '123-45-6789',
    countryOfIssuance: 'US',
  },
});

/** Creates a business customer through the API and returns its id. */
export async function createBusiness(caller: Caller, n = 1): Promise<string> {
  const res = await caller.req('POST', '/customers', businessCustomer(n));
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** Creates an owner through the API and returns the response body. */
export async function createOwner(caller: Caller, customerId: string, n = 1): Promise<Record<string, unknown> & { id: string; createdAt: string }> {
  const res = await caller.req('POST', '/beneficial-owners', ownerInput(customerId, n));
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export interface FieldErrorBody {
  status: number;
  code: string;
  details?: { errors?: { field: string; constraint?: Record<string, unknown>; message?: string }[] };
}

/** The FieldErrors of a 400 INVALID_INPUT response, by field. */
export function fieldErrors(res: { statusCode: number; body: string; json<T>(): T }) {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<FieldErrorBody>();
  expect(body.code).toBe('INVALID_INPUT');
  return new Map((body.details?.errors ?? []).map((e) => [e.field, e]));
}
