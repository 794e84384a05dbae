import { beforeAll, describe, expect, it } from 'vitest';
import type { DocumentsOnFile } from '../../src/domain/verifications/documents-on-file.js';
import { VerificationService } from '../../src/domain/verifications/verifications.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { businessCustomer, createOwner } from '../helpers/owners.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

const IDENTITY = ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'];
const ADDRESS = { line1: '123 Main St', city: 'Seattle', state: 'WA', postalCode: '98101', country: 'US' };

describeEachEngine('POST /verifications, GET /verifications, GET /verifications/{verificationId}', (t) => {
  const ctx = connectedCaller(t);
  /** The documents on file as the test says, in place of the documents table (see documents-on-file.ts). */
  const onFile = new Map<string, Set<string>>();
  const fakeDocuments: DocumentsOnFile = async (_uow, _platformId, holderIds) => new Map(holderIds.filter((id) => onFile.has(id)).map((id) => [id, onFile.get(id)!]));
  let withDocuments: VerificationService;

  beforeAll(async () => {
    withDocuments = new VerificationService(t.services.store, t.services.clock, t.services.cursors, fakeDocuments);
  });

  const create = async (c: Caller, body: unknown) => {
    const res = await c.req('POST', '/customers', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const verify = async (c: Caller, customerId: string) => {
    const res = await c.req('POST', '/verifications', { customerId });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const delivered = async (id: string, type: string) => {
    const find = () => ctx.receiver.verifiedUnique().find((d) => d.payload?.type === type && (d.payload.data as { id?: string } | undefined)?.id === id);
    await ctx.receiver.waitFor(() => find() !== undefined);
    expect(find()!.verified).toBe(true);
    return find()!.payload!;
  };

  describe('an individual: every missing field and document, then the loop', () => {
    it('lists each missing field and the identity document, one entry each; PATCH and resubmit until PENDING_MANUAL_REVIEW', async () => {
      const customer = await create(ctx.caller, { customerType: 'INDIVIDUAL', fullName: 'Jane Doe 001', birthDate: '1990-01-15', nationality: 'US' });
      const first = await verify(ctx.caller, customer.id);
      expect(first.verificationStatus).toBe('RESOLVE_ERRORS');
      expect(first.errors).toEqual([
        { resourceId: customer.id, type: 'MISSING_FIELD', field: 'idType', reason: expect.any(String) },
        { resourceId: customer.id, type: 'MISSING_FIELD', field: 'identifier', reason: expect.any(String) },
        { resourceId: customer.id, type: 'MISSING_FIELD', field: 'address.line1', reason: expect.any(String) },
        { resourceId: customer.id, type: 'MISSING_IDENTITY_DOCUMENT', acceptedDocumentTypes: IDENTITY, reason: expect.any(String) },
      ]);
      expect((await delivered(first.id, 'VERIFICATION.RESOLVE_ERRORS')).data).toEqual(first);
      expect((await ctx.caller.req('GET', `/verifications/${first.id}`)).json()).toEqual(first);

      const patched = await ctx.caller.req('PATCH', `/customers/${customer.id}`, { customerType: 'INDIVIDUAL', idType: 'SSN', identifier: '111-22-3333', address: ADDRESS });
      expect(patched.statusCode, patched.body).toBe(200);
      const second = await verify(ctx.caller, customer.id);
      expect(second.verificationStatus).toBe('RESOLVE_ERRORS');
      expect(second.errors.map((e: { type: string }) => e.type)).toEqual(['MISSING_IDENTITY_DOCUMENT']);

      onFile.set(customer.id, new Set(['PASSPORT']));
      const third = await withDocuments.create(ctx.caller.platformId, 'sandbox', customer.id);
      expect(third).toMatchObject({ verificationStatus: 'PENDING_MANUAL_REVIEW', errors: [] });
      const after = (await ctx.caller.req('GET', `/customers/${customer.id}`)).json();
      expect(after.kycStatus).toBe('PENDING');
      expect((await delivered(third.id, 'VERIFICATION.PENDING_MANUAL_REVIEW')).data).toEqual(third);
      // Submitted for review: CUSTOMER.KYC_PENDING again, with the customer as it is now.
      const pending = () => ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === 'CUSTOMER.KYC_PENDING' && (d.payload.data as { id: string }).id === customer.id);
      await ctx.receiver.waitFor(() => pending().length === 2);
      expect(pending().map((d) => (d.payload!.data as { updatedAt: string }).updatedAt)).toEqual(expect.arrayContaining([after.updatedAt]));

      const listed = (await ctx.caller.req('GET', `/verifications?customerId=${encodeURIComponent(customer.id)}`)).json();
      expect(listed.data.map((v: { id: string }) => v.id)).toEqual([first.id, second.id, third.id]);
      expect(listed.totalCount).toBe(3);
    });

    it('refuses a one-word fullName as INVALID_FIELD', async () => {
      const customer = await create(ctx.caller, { customerType: 'INDIVIDUAL', fullName: 'Cher001' });
      const v = await verify(ctx.caller, customer.id);
      expect(v.errors).toContainEqual({ resourceId: customer.id, type: 'INVALID_FIELD', field: 'fullName', reason: expect.any(String) });
    });

    it('answers a complete 003 customer RESOLVE_ERRORS with POOR_QUALITY_DOCUMENT, leaving it UNVERIFIED', async () => {
      const customer = await create(ctx.caller, { customerType: 'INDIVIDUAL', fullName: 'Jane Doe 003', birthDate: '1990-01-15', nationality: 'US', idType: 'SSN', identifier: '111-22-3333', address: ADDRESS });
      onFile.set(customer.id, new Set(['DRIVERS_LICENSE']));
      const v = await withDocuments.create(ctx.caller.platformId, 'sandbox', customer.id);
      expect(v).toMatchObject({ verificationStatus: 'RESOLVE_ERRORS', errors: [{ resourceId: customer.id, type: 'POOR_QUALITY_DOCUMENT', reason: expect.any(String) }] });
      expect((await ctx.caller.req('GET', `/customers/${customer.id}`)).json().kycStatus).toBe('UNVERIFIED');
    });
  });

  describe('a business (registration number ending in 003)', () => {
    const business003 = () => {
      const b = businessCustomer();
      return { ...b, businessInfo: { ...b.businessInfo, registrationNumber: 'RN-003' } };
    };

    it('lists missing business fields, each business document, the owner and the control person; then the loop reaches IN_PROGRESS with KYB_PENDING', async () => {
      const customer = await create(ctx.caller, { ...business003(), address: undefined });
      const first = await verify(ctx.caller, customer.id);
      const at = (type: string, extra: Record<string, unknown> = {}) => ({ resourceId: customer.id, type, reason: expect.any(String), ...extra });
      expect(first.errors).toEqual([
        at('MISSING_FIELD', { field: 'customer.address.line1' }),
        at('MISSING_FIELD', { field: 'customer.businessInfo.countriesOfOperation' }),
        at('MISSING_LEGAL_PRESENCE_DOCUMENT', { acceptedDocumentTypes: ['CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION', 'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT'] }),
        at('MISSING_CONTROL_STRUCTURE_DOCUMENT', { acceptedDocumentTypes: ['DIRECTOR_REGISTRY', 'TRUST_AGREEMENT', 'STATE_COMPANY_REGISTRY', 'PARTNERSHIP_CONTROL_AGREEMENT'] }),
        at('MISSING_OWNERSHIP_STRUCTURE_DOCUMENT', { acceptedDocumentTypes: ['SHAREHOLDER_REGISTER', 'TRUST_AGREEMENT', 'PARTNERSHIP_AGREEMENT'] }),
        at('MISSING_PROOF_OF_ADDRESS_DOCUMENT', { acceptedDocumentTypes: ['PROOF_OF_ADDRESS', 'UTILITY_BILL', 'RENT_OR_LEASE_AGREEMENT', 'ELECTRICITY_BILL', 'BANK_STATEMENT', 'TAX_RETURN'] }),
        at('MISSING_BENEFICIAL_OWNER'),
        at('MISSING_CONTROL_PERSON'),
      ]);

      await ctx.caller.req('PATCH', `/customers/${customer.id}`, { customerType: 'BUSINESS', address: ADDRESS, businessInfo: { countriesOfOperation: ['US'] } });
      const owner = await createOwner(ctx.caller, customer.id);
      await ctx.caller.req('PATCH', `/beneficial-owners/${owner.id}`, { personalInfo: { nationality: 'GB' } });
      const second = await verify(ctx.caller, customer.id);
      expect(second.errors.map((e: { type: string; resourceId: string }) => `${e.resourceId === owner.id ? 'owner' : 'customer'} ${e.type}`)).toEqual([
        'customer MISSING_LEGAL_PRESENCE_DOCUMENT',
        'customer MISSING_CONTROL_STRUCTURE_DOCUMENT',
        'customer MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
        'customer MISSING_PROOF_OF_ADDRESS_DOCUMENT',
        'owner MISSING_IDENTITY_DOCUMENT',
        'owner MISSING_IDENTITY_DOCUMENT',
      ]);
      expect(second.errors.filter((e: { resourceId: string }) => e.resourceId === owner.id).map((e: { acceptedDocumentTypes: string[] }) => e.acceptedDocumentTypes)).toEqual([['PASSPORT'], ['DRIVERS_LICENSE', 'NATIONAL_ID']]);

      onFile.set(customer.id, new Set(['ARTICLES_OF_ASSOCIATION', 'TRUST_AGREEMENT', 'UTILITY_BILL']));
      onFile.set(owner.id, new Set(['PASSPORT', 'NATIONAL_ID']));
      const third = await withDocuments.create(ctx.caller.platformId, 'sandbox', customer.id);
      expect(third).toMatchObject({ verificationStatus: 'IN_PROGRESS', errors: [] });
      const after = (await ctx.caller.req('GET', `/customers/${customer.id}`)).json();
      expect(after.kybStatus).toBe('PENDING');
      expect((await delivered(customer.id, 'CUSTOMER.KYB_PENDING')).data).toEqual(after);
      expect((await delivered(third.id, 'VERIFICATION.IN_PROGRESS')).data).toEqual(third);
      expect((await ctx.caller.req('GET', `/beneficial-owners/${owner.id}`)).json().kycStatus).toBe('UNVERIFIED');
    });
  });

  describe('reads, lists and refusals', () => {
    it('pages the list oldest first, filters by customerId and verificationStatus, binds cursors to the filters, and keeps platforms apart', async () => {
      const other = await t.newCaller();
      const mine = await create(other, { customerType: 'INDIVIDUAL', fullName: 'Jane Doe 001' });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await verify(other, mine.id)).id);
      const approved = await create(other, businessCustomer());
      ids.push((await verify(other, approved.id)).id);

      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = (await other.req('GET', `/verifications?limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json();
        expect(page.totalCount).toBe(4);
        seen.push(...page.data.map((v: { id: string }) => v.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(ids);
      expect((await other.req('GET', '/verifications?verificationStatus=APPROVED')).json().data.map((v: { id: string }) => v.id)).toEqual([ids[3]]);
      const firstPage = (await other.req('GET', '/verifications?limit=1')).json();
      const misused = await other.req('GET', `/verifications?limit=1&verificationStatus=APPROVED&cursor=${firstPage.nextCursor}`);
      expect(misused.statusCode).toBe(400);
      expect(misused.json().details.errors[0].field).toBe('cursor');

      // Another platform sees none of it: a foreign id answers like an unknown one.
      expect((await ctx.caller.req('GET', `/verifications?customerId=${encodeURIComponent(mine.id)}`)).json()).toEqual({ data: [], hasMore: false, totalCount: 0 });
      for (const id of [ids[0]!, 'Verification:019542f5-b3e7-7d02-8000-00000000dead']) {
        const res = await ctx.caller.req('GET', `/verifications/${id}`);
        expect(res.statusCode).toBe(404);
        expect(expectErrorObject(res, id).code).toBe('REFERENCE_NOT_FOUND');
      }
      const foreign = await ctx.caller.req('POST', '/verifications', { customerId: mine.id });
      expect(foreign.statusCode).toBe(404);
      expect(expectErrorObject(foreign, 'foreign').code).toBe('USER_NOT_FOUND');
    });

    it('answers 400 for a bad body or query (every field), 404 for an unknown customer, 410 for a deleted one', async () => {
      const bad = await ctx.caller.req('POST', '/verifications', { customerId: '', extra: 1 });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['customerId', 'extra']);
      expect(expectErrorObject(bad, 'bad body').code).toBe('INVALID_INPUT');
      const badQuery = await ctx.caller.req('GET', '/verifications?verificationStatus=DONE&limit=0');
      expect(badQuery.statusCode).toBe(400);
      expect(badQuery.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'verificationStatus']);
      const unknown = await ctx.caller.req('POST', '/verifications', { customerId: 'Customer:019542f5-b3e7-7d02-8000-00000000dead' });
      expect(unknown.statusCode).toBe(404);
      expect(expectErrorObject(unknown, 'unknown').code).toBe('USER_NOT_FOUND');
      const deleted = await create(ctx.caller, businessCustomer());
      await ctx.caller.req('DELETE', `/customers/${deleted.id}`);
      const gone = await ctx.caller.req('POST', '/verifications', { customerId: deleted.id });
      expect(gone.statusCode).toBe(410);
      expect(expectErrorObject(gone, 'deleted').code).toBe('CUSTOMER_DELETED');
    });

    it('replays a submission sent again with the same Idempotency-Key instead of recording a second one', async () => {
      const customer = await create(ctx.caller, { customerType: 'INDIVIDUAL', fullName: 'Jane Doe 001' });
      const headers = { 'idempotency-key': `verify-${customer.id}` };
      const a = await ctx.caller.req('POST', '/verifications', { customerId: customer.id }, headers);
      const b = await ctx.caller.req('POST', '/verifications', { customerId: customer.id }, headers);
      expect(a.statusCode).toBe(200);
      expect(b.json()).toEqual(a.json());
      expect((await ctx.caller.req('GET', `/verifications?customerId=${encodeURIComponent(customer.id)}`)).json().totalCount).toBe(1);
    });
  });
});
