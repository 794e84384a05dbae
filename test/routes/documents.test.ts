import { describe, expect, it } from 'vitest';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { createBusiness, createOwner, fieldErrors } from '../helpers/owners.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { FILES, multipartForm, type FormPart } from '../helpers/multipart.js';

const metadata = (documentHolder: string, extra: Record<string, string> = {}): FormPart[] =>
  Object.entries({ documentHolder, documentType: 'PASSPORT', country: 'US', ...extra }).map(([name, value]) => ({ name, value }));

function upload(caller: Caller, parts: FormPart[], headers: Record<string, string> = {}, method: 'POST' | 'PUT' = 'POST', path = '/documents') {
  const form = multipartForm(parts);
  return caller.req(method, path, form.payload, { ...form.headers, ...headers });
}

describeEachEngine('documents: upload, list, get, replace, delete', (t) => {
  it('uploads a passport for a customer, stores its bytes, and reads it back', async () => {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const bytes = FILES.pdf(5000);
    const res = await upload(t.caller, [...metadata(customerId, { side: 'FRONT', documentNumber: 'A12345678', issuingAuthority: 'U.S. Department of State' }), { name: 'file', filename: 'passport.pdf', contentType: 'application/pdf', data: bytes }]);
    expect(res.statusCode, res.body).toBe(201);
    const doc = res.json<Record<string, string>>();
    expect(doc).toEqual({
      id: expect.stringMatching(/^Document:[0-9a-f-]{36}$/),
      documentHolder: customerId,
      documentType: 'PASSPORT',
      side: 'FRONT',
      country: 'US',
      documentNumber: 'A12345678',
      issuingAuthority: 'U.S. Department of State',
      fileName: 'passport.pdf',
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: doc.createdAt,
    });
    expect((await t.caller.req('GET', `/documents/${doc.id}`)).json()).toEqual(doc);
    const stored = await t.services.documents.file(t.caller.platformId, doc.id!);
    expect(stored.contentType).toBe('application/pdf');
    expect(stored.bytes.equals(bytes)).toBe(true);
  });

  it('accepts a beneficial owner as holder, and answers which document types are on file for each holder', async () => {
    const business = await createBusiness(t.caller);
    const owner = await createOwner(t.caller, business);
    for (const [holder, documentType, file] of [
      [owner.id, 'DRIVERS_LICENSE', { filename: 'front.png', contentType: 'image/png', data: FILES.png() }],
      [business, 'CERTIFICATE_OF_INCORPORATION', { filename: 'cert.jpg', contentType: 'image/jpeg', data: FILES.jpeg() }],
      [business, 'UTILITY_BILL', { filename: 'bill.pdf', data: FILES.pdf() }],
    ] as const) {
      const res = await upload(t.caller, [...metadata(holder, { documentType }), { name: 'file', ...file }]);
      expect(res.statusCode, res.body).toBe(201);
    }
    expect(await t.services.documents.typesOnFile(t.caller.platformId, owner.id)).toEqual(['DRIVERS_LICENSE']);
    expect(await t.services.documents.typesOnFile(t.caller.platformId, business)).toEqual(['CERTIFICATE_OF_INCORPORATION', 'UTILITY_BILL']);
    const other = await t.newCaller();
    expect(await t.services.documents.typesOnFile(other.platformId, business)).toEqual([]);
  });

  it('lists documents oldest first, page by page, and narrows the list to one holder', async () => {
    const caller = await t.newCaller();
    const a = await insertTestCustomer(t, caller, 'INDIVIDUAL');
    const b = await insertTestCustomer(t, caller, 'INDIVIDUAL');
    const ids: string[] = [];
    for (const holder of [a, b, a]) {
      const res = await upload(caller, [...metadata(holder), { name: 'file', filename: 'p.pdf', data: FILES.pdf() }]);
      ids.push(res.json<{ id: string }>().id);
    }
    const first = (await caller.req('GET', '/documents?limit=2')).json<{ data: { id: string }[]; hasMore: boolean; nextCursor: string; totalCount: number }>();
    expect([first.data.map((d) => d.id), first.hasMore, first.totalCount]).toEqual([ids.slice(0, 2), true, 3]);
    const second = (await caller.req('GET', `/documents?limit=2&cursor=${first.nextCursor}`)).json<{ data: { id: string }[]; hasMore: boolean }>();
    expect([second.data.map((d) => d.id), second.hasMore]).toEqual([[ids[2]], false]);
    const ofA = (await caller.req('GET', `/documents?documentHolder=${a}`)).json<{ data: { id: string }[]; totalCount: number }>();
    expect([ofA.data.map((d) => d.id), ofA.totalCount]).toEqual([[ids[0], ids[2]], 2]);
    // A cursor of the whole list is not one of the holder's list.
    expect([...fieldErrors(await caller.req('GET', `/documents?documentHolder=${a}&cursor=${first.nextCursor}`)).keys()]).toEqual(['cursor']);
  });

  it('replaces the file and metadata but keeps the holder, then deletes the document and its bytes', async () => {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const created = (await upload(t.caller, [...metadata(customerId), { name: 'file', filename: 'old.pdf', data: FILES.pdf() }])).json<Record<string, string>>();
    const png = FILES.png(300);
    const res = await upload(t.caller, [{ name: 'documentType', value: 'NATIONAL_ID' }, { name: 'country', value: 'FR' }, { name: 'side', value: 'BACK' }, { name: 'file', filename: 'new.png', contentType: 'image/png', data: png }], {}, 'PUT', `/documents/${created.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const replaced = res.json<Record<string, string>>();
    expect(replaced).toMatchObject({ id: created.id, documentHolder: customerId, documentType: 'NATIONAL_ID', country: 'FR', side: 'BACK', fileName: 'new.png', createdAt: created.createdAt });
    expect(Date.parse(replaced.updatedAt!)).toBeGreaterThanOrEqual(Date.parse(created.createdAt!));
    expect((await t.services.documents.file(t.caller.platformId, created.id!)).bytes.equals(png)).toBe(true);
    expect(await t.services.documents.typesOnFile(t.caller.platformId, customerId)).toEqual(['NATIONAL_ID']);

    expect((await t.caller.req('DELETE', `/documents/${created.id}`)).statusCode).toBe(204);
    for (const [method, expected] of [['GET', 404], ['DELETE', 404]] as const) {
      const gone = await t.caller.req(method, `/documents/${created.id}`);
      expect([gone.statusCode, gone.json<{ code: string }>().code]).toEqual([expected, 'REFERENCE_NOT_FOUND']);
    }
    await expect(t.services.documents.file(t.caller.platformId, created.id!)).rejects.toThrow(/not found/);
  });
});

describeEachEngine('documents: refusals', (t) => {
  it('refuses a file whose content is not the PDF, PNG or JPEG it claims, naming the file field', async () => {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const cases: FormPart[] = [
      { name: 'file', filename: 'fake.png', contentType: 'image/png', data: Buffer.from('GIF89a not a png at all') },
      { name: 'file', filename: 'photo.png', contentType: 'image/png', data: FILES.jpeg() },
      { name: 'file', filename: 'scan.pdf', contentType: 'application/octet-stream', data: FILES.png() },
      { name: 'file', filename: 'empty.pdf', contentType: 'application/pdf', data: Buffer.alloc(0) },
    ];
    for (const file of cases) {
      const errors = fieldErrors(await upload(t.caller, [...metadata(customerId), file]));
      expect([...errors.keys()], 'filename' in file ? file.filename : '').toEqual(['file']);
    }
    expect((await t.caller.req('GET', `/documents?documentHolder=${customerId}`)).json()).toMatchObject({ totalCount: 0 });
  });

  it('reports every invalid field at once: the metadata, an unknown field, a missing file, a repeated field', async () => {
    const res = await upload(t.caller, [
      { name: 'documentHolder', value: 'Card:123' },
      { name: 'documentType', value: 'LIBRARY_CARD' },
      { name: 'country', value: 'XX' },
      { name: 'side', value: 'TOP' },
      { name: 'side', value: 'FRONT' },
      { name: 'nickname', value: 'x' },
    ]);
    const errors = fieldErrors(res);
    expect([...errors.keys()].sort()).toEqual(['country', 'documentHolder', 'documentType', 'file', 'nickname', 'side']);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a file past DOCUMENT_MAX_BYTES and stores nothing', async () => {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const res = await upload(t.caller, [...metadata(customerId), { name: 'file', filename: 'big.pdf', data: FILES.pdf(t.services.config.documentMaxBytes + 1) }]);
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json()).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    const exact = await upload(t.caller, [...metadata(customerId), { name: 'file', filename: 'limit.pdf', data: FILES.pdf(t.services.config.documentMaxBytes) }]);
    expect(exact.statusCode, exact.body).toBe(201);
    expect((await t.caller.req('GET', `/documents?documentHolder=${customerId}`)).json()).toMatchObject({ totalCount: 1 });
  });

  it('answers 415 for a JSON body, and multipart stays refused on the JSON operations', async () => {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const json = await t.caller.req('POST', '/documents', { documentHolder: customerId, documentType: 'PASSPORT', country: 'US' });
    expect([json.statusCode, json.json<{ code: string }>().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const form = multipartForm([{ name: 'customerType', value: 'INDIVIDUAL' }]);
    const customers = await t.caller.req('POST', '/customers', form.payload, form.headers);
    expect([customers.statusCode, customers.json<{ code: string }>().code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('isolates documents per platform and environment: a foreign holder or document answers like an unknown one', async () => {
    const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const doc = (await upload(t.caller, [...metadata(customerId), { name: 'file', filename: 'p.pdf', data: FILES.pdf() }])).json<{ id: string }>();
    const unknownCustomer = 'Customer:0190ffff-0000-7000-8000-000000000000';
    for (const other of [await t.newCaller(), await t.newCaller('production', t.caller)]) {
      for (const holder of [customerId, unknownCustomer]) {
        const res = await upload(other, [...metadata(holder), { name: 'file', filename: 'p.pdf', data: FILES.pdf() }]);
        expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([404, 'USER_NOT_FOUND']);
      }
      const owner = await upload(other, [...metadata('BeneficialOwner:0190ffff-0000-7000-8000-000000000000'), { name: 'file', filename: 'p.pdf', data: FILES.pdf() }]);
      expect([owner.statusCode, owner.json<{ code: string }>().code]).toEqual([404, 'REFERENCE_NOT_FOUND']);
      for (const [method, path] of [['GET', `/documents/${doc.id}`], ['DELETE', `/documents/${doc.id}`]] as const) {
        expect((await other.req(method, path)).statusCode).toBe(404);
      }
      const put = await upload(other, [{ name: 'documentType', value: 'PASSPORT' }, { name: 'country', value: 'US' }, { name: 'file', filename: 'p.pdf', data: FILES.pdf() }], {}, 'PUT', `/documents/${doc.id}`);
      expect(put.statusCode).toBe(404);
      expect((await other.req('GET', `/documents?documentHolder=${customerId}`)).json()).toMatchObject({ data: [], totalCount: 0 });
    }
    expect((await t.caller.req('GET', `/documents/${doc.id}`)).statusCode).toBe(200);
  });
});

describe('documents: Idempotency-Key', () => {
  describeEachEngine('replay', (t) => {
    it('replays the first answer for the same parts under another boundary, and refuses other parts under the same key', async () => {
      const customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
      const parts = (data: Buffer): FormPart[] => [...metadata(customerId), { name: 'file', filename: 'p.pdf', data }];
      const key = { 'idempotency-key': `doc-${Date.now()}` };
      const first = await upload(t.caller, parts(FILES.pdf(40_000)), key);
      expect(first.statusCode, first.body).toBe(201);
      const again = await upload(t.caller, parts(FILES.pdf(40_000)), key);
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      const changed = await upload(t.caller, parts(FILES.pdf(40_001)), key);
      expect([...fieldErrors(changed).keys()]).toEqual(['Idempotency-Key']);
      expect((await t.caller.req('GET', `/documents?documentHolder=${customerId}`)).json()).toMatchObject({ totalCount: 1 });
    });
  });
});
