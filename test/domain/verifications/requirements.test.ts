import { describe, expect, it } from 'vitest';
import { kycStatusAtCreation, magicSuffix, ownerStatusAtResolution } from '../../../src/domain/customers/kyc.js';
import { businessErrors, individualErrors } from '../../../src/domain/verifications/requirements.js';

const C = 'Customer:c';
const complete = { fullName: 'Jane Doe', birthDate: '1990-01-15', nationality: 'US', idType: 'SSN', identifier: '111-22-3333', address: { line1: '1 Main St' } };

describe('the sandbox suffixes', () => {
  it('reads the last three characters, and nothing from a missing value', () => {
    expect(magicSuffix('Jane Doe 001')).toBe('001');
    expect(magicSuffix('x1')).toBe('x1');
    expect(magicSuffix(undefined)).toBe('');
  });

  it('decides an individual at creation in the sandbox only, and never a business', () => {
    expect(['001', '002', '003', '004', ''].map((s) => kycStatusAtCreation('sandbox', 'INDIVIDUAL', `Jane Doe ${s}`))).toEqual(['PENDING', 'REJECTED', 'UNVERIFIED', 'APPROVED', 'APPROVED']);
    expect(kycStatusAtCreation('production', 'INDIVIDUAL', 'Jane Doe')).toBe('UNVERIFIED');
    expect(kycStatusAtCreation('sandbox', 'BUSINESS', 'Acme 001')).toBe('UNVERIFIED');
  });

  it("decides an owner by its lastName: 001 PENDING, 002 REJECTED, else APPROVED (003 included)", () => {
    expect(['Smith001', 'Smith002', 'Smith003', 'Smith'].map(ownerStatusAtResolution)).toEqual(['PENDING', 'REJECTED', 'APPROVED', 'APPROVED']);
  });
});

describe('the data requirements', () => {
  it('asks nothing of a complete individual with any identity document on file', () => {
    for (const doc of ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID']) expect(individualErrors(C, complete, new Set([doc]))).toEqual([]);
    expect(individualErrors(C, complete, new Set(['UTILITY_BILL'])).map((e) => e.type)).toEqual(['MISSING_IDENTITY_DOCUMENT']);
  });

  it('lists every missing individual field once, in the guide\'s order', () => {
    expect(individualErrors(C, {}, new Set()).map((e) => e.field ?? e.type)).toEqual(['fullName', 'birthDate', 'nationality', 'idType', 'identifier', 'address.line1', 'MISSING_IDENTITY_DOCUMENT']);
  });

  it('accepts any one document of a category, and a U.S. owner without identity documents', () => {
    const owner = { id: 'BeneficialOwner:o', roles: ['UBO', 'DIRECTOR'], personalInfo: { firstName: 'A', lastName: 'B', birthDate: '1980-01-01', nationality: 'US', address: { line1: 'x', postalCode: '1', country: 'US' }, identifier: '1' } };
    const data = { businessInfo: { legalName: 'Acme', taxId: '1', countriesOfOperation: ['US'] }, address: { line1: 'x' } };
    const docs = new Map([[C, new Set(['STATE_REGISTRY_EXCERPT', 'PARTNERSHIP_CONTROL_AGREEMENT', 'SHAREHOLDER_REGISTER', 'BANK_STATEMENT'])]]);
    expect(businessErrors(C, data, [owner], docs)).toEqual([]);
    // An owner in a UBO role only is no control person.
    expect(businessErrors(C, data, [{ ...owner, roles: ['UBO'] }], docs).map((e) => e.type)).toEqual(['MISSING_CONTROL_PERSON']);
  });
});
