import { describe, expect, it } from 'vitest';
import { FILES, multipartForm } from '../helpers/multipart.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

const ADDRESS = { line1: '123 Main St', city: 'Seattle', state: 'WA', postalCode: '98101', country: 'US' };

/** The fix-and-resubmit loop through the API alone: the missing document is uploaded with POST /documents, not faked. */
describeEachEngine('POST /verifications reads the documents uploaded with POST /documents', (t) => {
  const upload = async (caller: Caller, holder: string, documentType: string) => {
    const form = multipartForm([
      { name: 'documentHolder', value: holder },
      { name: 'documentType', value: documentType },
      { name: 'country', value: 'US' },
      { name: 'file', filename: 'id.png', contentType: 'image/png', data: FILES.png(512) },
    ]);
    const res = await caller.req('POST', '/documents', form.payload, form.headers);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const verify = async (caller: Caller, customerId: string) => {
    const res = await caller.req('POST', '/verifications', { customerId });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const individual = async (caller: Caller) => {
    const res = await caller.req('POST', '/customers', {
      customerType: 'INDIVIDUAL', fullName: 'Jane Doe 001', birthDate: '1990-01-15', nationality: 'US', idType: 'SSN', identifier: '111-22-3333', address: ADDRESS,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };

  describe('an individual with every field but no identity document', () => {
    it('is missing only the document; once a passport is uploaded the resubmission goes to review', async () => {
      const caller = await t.newCaller();
      const customerId = await individual(caller);
      const first = await verify(caller, customerId);
      expect(first.verificationStatus).toBe('RESOLVE_ERRORS');
      expect(first.errors.map((e: { type: string }) => e.type)).toEqual(['MISSING_IDENTITY_DOCUMENT']);

      await upload(caller, customerId, 'PASSPORT');
      const second = await verify(caller, customerId);
      expect(second).toMatchObject({ verificationStatus: 'PENDING_MANUAL_REVIEW', errors: [] });
      expect((await caller.req('GET', `/customers/${customerId}`)).json().kycStatus).toBe('PENDING');
    });

    it('is missing the document again once the uploaded one is deleted', async () => {
      const caller = await t.newCaller();
      const customerId = await individual(caller);
      const documentId = await upload(caller, customerId, 'PASSPORT');
      expect((await caller.req('DELETE', `/documents/${documentId}`)).statusCode).toBe(204);
      const again = await verify(caller, customerId);
      expect(again.errors.map((e: { type: string }) => e.type)).toEqual(['MISSING_IDENTITY_DOCUMENT']);
    });

    it("does not count another platform's upload, nor a document type that does not prove identity", async () => {
      const caller = await t.newCaller();
      const other = await t.newCaller();
      const customerId = await individual(caller);
      await upload(other, await individual(other), 'PASSPORT');
      await upload(caller, customerId, 'PROOF_OF_ADDRESS');
      const result = await verify(caller, customerId);
      expect(result.errors.map((e: { type: string }) => e.type)).toEqual(['MISSING_IDENTITY_DOCUMENT']);
    });
  });
});
