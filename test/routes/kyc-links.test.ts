import { expect, it } from 'vitest';
import { KycLinks } from '../../src/domain/customers/kyc-links.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { businessCustomer } from '../helpers/owners.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

const TTL_MS = 60_000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describeEachEngine(
  'POST /customers/{customerId}/kyc-link and its hosted page',
  (t) => {
    const ctx = connectedCaller(t);

    const create = async (body: unknown, c: Caller = ctx.caller) => {
      const res = await c.req('POST', '/customers', body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; kycStatus?: string; kybStatus?: string; businessInfo?: unknown };
    };
    const link = async (customerId: string, body?: unknown) => {
      const res = await ctx.caller.req('POST', `/customers/${customerId}/kyc-link`, body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { kycUrl: string; expiresAt: string; provider: string };
    };
    /** As a browser: no credentials, the URL is the credential. */
    const open = (kycUrl: string) => t.app.inject({ method: 'GET', url: new URL(kycUrl).pathname });
    const submit = (kycUrl: string, form: Record<string, string>) => t.app.inject({ method: 'POST', url: new URL(kycUrl).pathname, headers: FORM, payload: new URLSearchParams(form).toString() });
    const buttons = (html: string) => [...html.matchAll(/name="outcome" value="(\w+)"/g)].map((m) => m[1]);
    const inputs = (html: string) => [...html.matchAll(/<input name="(\w+)"/g)].map((m) => m[1]);
    const delivered = (customerId: string) => ctx.receiver.verifiedUnique().filter((d) => (d.payload?.data as { id?: string } | undefined)?.id === customerId).map((d) => d.payload!.type);

    it('answers a single-use link to a page with one button per outcome; finishing it redirects (303), sets the status and sends the API path\'s webhook', async () => {
      const customer = await create({ customerType: 'INDIVIDUAL', fullName: 'Una Verified 003' });
      expect(customer.kycStatus).toBe('UNVERIFIED');
      const before = Date.now();
      const grant = await link(customer.id, { redirectUri: 'https://app.example.com/onboarding/done' });
      expect(Object.keys(grant).sort()).toEqual(['expiresAt', 'kycUrl', 'provider']);
      expect(grant.provider).toBe('SUMSUB');
      expect(Date.parse(grant.expiresAt)).toBeGreaterThanOrEqual(before + TTL_MS);
      expect(Date.parse(grant.expiresAt)).toBeLessThanOrEqual(Date.now() + TTL_MS);
      expect(new URL(grant.kycUrl).pathname).toMatch(/^\/sandbox-pages\/kyc\/[^/]+$/);
      const page = await open(grant.kycUrl);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).not.toMatch(/<script/i);
      expect(buttons(page.body)).toEqual(['APPROVED', 'PENDING', 'REJECTED', 'UNVERIFIED']);
      expect(inputs(page.body)).toEqual([]);
      const done = await submit(grant.kycUrl, { outcome: 'APPROVED' });
      expect(done.statusCode, done.body).toBe(303);
      expect(done.headers.location).toBe('https://app.example.com/onboarding/done');
      expect((await ctx.caller.req('GET', `/customers/${customer.id}`)).json().kycStatus).toBe('APPROVED');
      await ctx.receiver.waitFor(() => delivered(customer.id).includes('CUSTOMER.KYC_APPROVED'));
      for (const again of [await open(grant.kycUrl), await submit(grant.kycUrl, { outcome: 'REJECTED' })]) {
        expect(again.statusCode).toBe(404);
        expect(expectErrorObject(again, 'used').code).toBe('REFERENCE_NOT_FOUND');
      }
      expect((await ctx.caller.req('GET', `/customers/${customer.id}`)).json().kycStatus).toBe('APPROVED');
    });

    it('asks an individual without a fullName for it: a submission without it is a 400 that leaves the link open; the name given is kept', async () => {
      // No fullName: the sandbox approves at creation, so the test puts it back to UNVERIFIED first.
      const customer = await create({ customerType: 'INDIVIDUAL' });
      expect((await ctx.caller.req('POST', `/sandbox/customers/${customer.id}/kyc`, { status: 'UNVERIFIED' })).statusCode).toBe(200);
      const grant = await link(customer.id);
      expect(inputs((await open(grant.kycUrl)).body)).toEqual(['fullName']);
      const missing = await submit(grant.kycUrl, { outcome: 'PENDING' });
      expect(missing.statusCode).toBe(400);
      expect((expectErrorObject(missing, 'no name').details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['fullName']);
      const bad = await submit(grant.kycUrl, { outcome: 'HOLD', fullName: 'Pat Doe' });
      expect(bad.statusCode).toBe(400);
      const done = await submit(grant.kycUrl, { outcome: 'PENDING', fullName: 'Pat Doe' });
      expect(done.statusCode, done.body).toBe(200);
      expect(done.body).toMatch(/id="finished"/);
      const after = (await ctx.caller.req('GET', `/customers/${customer.id}`)).json();
      expect(after).toMatchObject({ fullName: 'Pat Doe', kycStatus: 'PENDING' });
      await ctx.receiver.waitFor(() => delivered(customer.id).includes('CUSTOMER.KYC_PENDING'));
    });

    it("offers a business the outcomes of its registrationNumber suffix: 002 rejected, 001 and 003 reviewed with owner and document asked (and kept on the customer), others approved", async () => {
      const cases = [
        { suffix: '002', buttons: ['REJECTED'], asks: [], choose: { outcome: 'REJECTED' } as Record<string, string>, status: 'REJECTED' },
        { suffix: '003', buttons: ['APPROVED', 'PENDING', 'REJECTED'], asks: ['beneficialOwnerName', 'formationDocument'], choose: { outcome: 'APPROVED', beneficialOwnerName: ' Jo Owner ', formationDocument: 'articles.pdf' }, status: 'APPROVED' },
        { suffix: '001', buttons: ['APPROVED', 'PENDING', 'REJECTED'], asks: ['beneficialOwnerName', 'formationDocument'], choose: { outcome: 'PENDING', beneficialOwnerName: 'Ann Control', formationDocument: 'certificate.pdf' }, status: 'PENDING' },
        { suffix: '777', buttons: ['APPROVED'], asks: [], choose: { outcome: 'APPROVED' }, status: 'APPROVED' },
      ];
      for (const c of cases) {
        const base = businessCustomer();
        const customer = await create({ ...base, businessInfo: { ...base.businessInfo, registrationNumber: `RN-${c.suffix}` } });
        const grant = await link(customer.id);
        const page = (await open(grant.kycUrl)).body;
        expect(buttons(page), c.suffix).toEqual(c.buttons);
        expect(inputs(page), c.suffix).toEqual(c.asks);
        if (c.suffix === '002') expect((await submit(grant.kycUrl, { outcome: 'APPROVED' })).statusCode).toBe(400);
        if (c.asks.length > 0) {
          // An answer missing: a 400 naming it, and nothing kept.
          const missing = await submit(grant.kycUrl, { outcome: c.choose.outcome!, beneficialOwnerName: 'Jo Owner' });
          expect(missing.statusCode).toBe(400);
          expect((expectErrorObject(missing, 'no document').details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['formationDocument']);
          expect((await ctx.caller.req('GET', `/customers/${customer.id}`)).json().hostedKybAnswers).toBeUndefined();
        }
        expect((await submit(grant.kycUrl, c.choose)).statusCode).toBe(200);
        const after = (await ctx.caller.req('GET', `/customers/${customer.id}`)).json();
        expect(after.kybStatus).toBe(c.status);
        // The answers the page asked for are kept on the customer (trimmed), as an individual's name is; a page that asked nothing keeps nothing.
        const kept = c.asks.length > 0 ? { beneficialOwnerName: c.choose.beneficialOwnerName!.trim(), formationDocument: c.choose.formationDocument } : undefined;
        expect(after.hostedKybAnswers, c.suffix).toEqual(kept);
        expect(after.businessInfo).toEqual(customer.businessInfo);
        await ctx.receiver.waitFor(() => delivered(customer.id).includes(`CUSTOMER.KYB_${c.status}`));
        const hook = ctx.receiver.verifiedUnique().find((d) => (d.payload?.data as { id?: string } | undefined)?.id === customer.id && d.payload!.type === `CUSTOMER.KYB_${c.status}`)!;
        expect((hook.payload!.data as { hostedKybAnswers?: unknown }).hostedKybAnswers, c.suffix).toEqual(kept);
      }
    });

    it('lets only one of two simultaneous submissions through', async () => {
      const customer = await create({ customerType: 'INDIVIDUAL', fullName: 'Race Case 003' });
      const grant = await link(customer.id);
      const answers = await Promise.all([submit(grant.kycUrl, { outcome: 'APPROVED' }), submit(grant.kycUrl, { outcome: 'REJECTED' })]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 404]);
      const winner = answers.find((a) => a.statusCode === 200)!.body.includes('APPROVED') ? 'APPROVED' : 'REJECTED';
      expect((await ctx.caller.req('GET', `/customers/${customer.id}`)).json().kycStatus).toBe(winner);
    });

    it('refuses a link while a contact channel is PENDING (409), and gives one once both are VERIFIED', async () => {
      const customer = await create({ customerType: 'INDIVIDUAL', region: 'NL', email: 'a@example.nl', phoneNumber: '+31612345678', fullName: 'Anne 003' });
      const early = await ctx.caller.req('POST', `/customers/${customer.id}/kyc-link`);
      expect(early.statusCode).toBe(409);
      expect(expectErrorObject(early, 'contact pending').code).toBe('INVALID_STATE_TRANSITION');
      for (const channel of ['email', 'phone']) {
        await ctx.caller.req('POST', `/customers/${customer.id}/verify-${channel}`);
        expect((await ctx.caller.req('POST', `/customers/${customer.id}/verify-${channel}/confirm`, { code: '123456' })).statusCode).toBe(200);
      }
      await link(customer.id);
    });

    it('treats a forged, truncated or expired token like an unknown one, and a decided customer\'s page offers nothing', async () => {
      const customer = await create({ customerType: 'INDIVIDUAL', fullName: 'Exp Ired 003' });
      const grant = await link(customer.id);
      const path = new URL(grant.kycUrl).pathname;
      for (const url of [`${path}x`, path.slice(0, -5), '/sandbox-pages/kyc/nothing.here']) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
      }
      expect((await open(grant.kycUrl)).statusCode).toBe(200);
      const instant = new KycLinks(t.services.store, t.services.clock, Buffer.alloc(32, 7), 0);
      const expired = await instant.create(ctx.caller.platformId, 'sandbox', ctx.caller.tokenId, customer.id, undefined);
      expect(await instant.page(expired.token)).toBeUndefined();
      expect(await instant.finish(expired.token, 'APPROVED', {})).toBeUndefined();
      const approved = await create({ customerType: 'INDIVIDUAL', fullName: 'Al Ready' });
      const decided = await open((await link(approved.id)).kycUrl);
      expect(decided.body).toMatch(/id="decided"/);
      expect(buttons(decided.body)).toEqual([]);
    });

    it('expires on the platform clock: an advance past the TTL closes the page and refuses the submission; another platform\'s link stays open', async () => {
      const moved = await t.newCaller();
      const mine = await create({ customerType: 'INDIVIDUAL', fullName: 'Clock Work 003' }, moved);
      const res = await moved.req('POST', `/customers/${mine.id}/kyc-link`);
      expect(res.statusCode, res.body).toBe(201);
      const grant = res.json() as { kycUrl: string; expiresAt: string };
      const untouched = await link((await create({ customerType: 'INDIVIDUAL', fullName: 'Still Open 003' })).id);
      expect((await open(grant.kycUrl)).statusCode).toBe(200);
      const advanced = await moved.req('POST', '/sandbox/clock/advance', { seconds: TTL_MS / 1000 + 1 });
      expect(advanced.statusCode, advanced.body).toBe(200);
      expect(Date.now()).toBeLessThan(Date.parse(grant.expiresAt));
      expect((await open(grant.kycUrl)).statusCode).toBe(404);
      expect((await submit(grant.kycUrl, { outcome: 'APPROVED' })).statusCode).toBe(404);
      expect((await moved.req('GET', `/customers/${mine.id}`)).json().kycStatus).toBe('UNVERIFIED');
      expect((await open(untouched.kycUrl)).statusCode).toBe(200);
      const again = await moved.req('POST', `/customers/${mine.id}/kyc-link`);
      expect(Date.parse(again.json().expiresAt)).toBeGreaterThanOrEqual(Date.parse(advanced.json<{ now: string }>().now) + TTL_MS);
    });

    it('answers 404 USER_NOT_FOUND for an unknown or foreign customer, 410 for a deleted one, 400 for a bad body, 501 in production', async () => {
      const other = await t.newCaller();
      const foreign = await create({ customerType: 'INDIVIDUAL' }, other);
      for (const id of ['Customer:019542f5-b3e7-7d02-8000-00000000dead', foreign.id]) {
        const res = await ctx.caller.req('POST', `/customers/${id}/kyc-link`);
        expect(res.statusCode, res.body).toBe(404);
        expect(expectErrorObject(res, id).code).toBe('USER_NOT_FOUND');
      }
      const deleted = await create({ customerType: 'INDIVIDUAL' });
      await ctx.caller.req('DELETE', `/customers/${deleted.id}`);
      expect((await ctx.caller.req('POST', `/customers/${deleted.id}/kyc-link`)).statusCode).toBe(410);
      const live = await create({ customerType: 'INDIVIDUAL' });
      for (const body of [{ redirectUri: 'ftp://example.com/x' }, { redirectUri: 'not a uri' }, { redirect: 'https://example.com' }]) {
        const res = await ctx.caller.req('POST', `/customers/${live.id}/kyc-link`, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(expectErrorObject(res, 'bad body').code).toBe('INVALID_INPUT');
      }
      const production = await t.newCaller('production', ctx.caller);
      const prod = await create({ customerType: 'INDIVIDUAL' }, production);
      const res = await production.req('POST', `/customers/${prod.id}/kyc-link`);
      expect(res.statusCode).toBe(501);
      expect(expectErrorObject(res, 'production').code).toBe('NOT_IMPLEMENTED');
    });
  },
  { KYC_LINK_TTL_MS: String(TTL_MS) },
);
