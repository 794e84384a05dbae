import { describe, expect, it } from 'vitest';
import { KYC_STATUSES } from '../../src/domain/customers/beneficial-owners.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller, connectReceiver } from '../helpers/webhook-receiver.js';

describeEachEngine(
  'sandbox KYC: POST /sandbox/customers/{customerId}/kyc forces any status',
  (t) => {
    const ctx = connectedCaller(t);

    const statusOf = (customer: { kycStatus?: string; kybStatus?: string }) => customer.kycStatus ?? customer.kybStatus;
    /** Verified deliveries about the customer, in arrival order. */
    const delivered = (customerId: string) => ctx.receiver.verifiedUnique().filter((d) => (d.payload?.data as { id?: string } | undefined)?.id === customerId);
    /** The customer's CUSTOMER.* events as recorded, in order. */
    const recorded = async (platformId: string, customerId: string) =>
      (await t.services.store.db.selectFrom('webhook_events').select(['type', 'body']).where('platform_id', '=', platformId).where('type', 'like', 'CUSTOMER.%').orderBy('created_at').orderBy('id').execute())
        .filter((e) => JSON.parse(e.body).data.id === customerId)
        .map((e) => e.type);
    it('sets each status with its webhook: CUSTOMER.KYC_/KYB_ PENDING, APPROVED and REJECTED; none for UNVERIFIED and HOLD', async () => {
      const quiet = await t.newCaller();
      await connectReceiver(quiet, ctx.receiver);
      for (const [type, prefix] of [
        ['INDIVIDUAL', 'CUSTOMER.KYC_'],
        ['BUSINESS', 'CUSTOMER.KYB_'],
      ] as const) {
        const id = await insertTestCustomer(t, quiet, type);
        const expected: string[] = [];
        for (const status of KYC_STATUSES) {
          const res = await quiet.req('POST', `/sandbox/customers/${id}/kyc`, { status });
          expect(res.statusCode, res.body).toBe(200);
          expect(res.json()).toMatchObject({ id, customerType: type, [type === 'BUSINESS' ? 'kybStatus' : 'kycStatus']: status });
          expect(res.json()).not.toHaveProperty(type === 'BUSINESS' ? 'kycStatus' : 'kybStatus');
          expect((await quiet.req('GET', `/customers/${id}`)).json()).toEqual(res.json());
          if (['PENDING', 'APPROVED', 'REJECTED'].includes(status)) expected.push(`${prefix}${status}`);
        }
        expect(await recorded(quiet.platformId, id)).toEqual(expected);
        await ctx.receiver.waitFor(() => delivered(id).length === expected.length);
        expect(delivered(id).map((d) => d.payload!.type).sort()).toEqual([...expected].sort());
        expect(delivered(id).every((d) => d.verified)).toBe(true);
      }
    });

    describe('refusals', () => {
      it('answers 404 for an unknown or foreign customer, 410 for a deleted one, 400 for a status outside the enum, 404 in production', async () => {
        const other = await t.newCaller();
        const foreign = await insertTestCustomer(t, other);
        for (const id of ['Customer:019542f5-b3e7-7d02-8000-00000000dead', foreign]) {
          const res = await ctx.caller.req('POST', `/sandbox/customers/${id}/kyc`, { status: 'APPROVED' });
          expect(res.statusCode, res.body).toBe(404);
          expect(expectErrorObject(res, id).code).toBe('USER_NOT_FOUND');
        }
        const deleted = await insertTestCustomer(t, ctx.caller);
        await ctx.caller.req('DELETE', `/customers/${deleted}`);
        const gone = await ctx.caller.req('POST', `/sandbox/customers/${deleted}/kyc`, { status: 'APPROVED' });
        expect(gone.statusCode).toBe(410);
        expect(expectErrorObject(gone, 'deleted').code).toBe('CUSTOMER_DELETED');
        const live = await insertTestCustomer(t, ctx.caller);
        for (const body of [{ status: 'VERIFIED' }, {}, { status: 'APPROVED', reason: 'x' }]) {
          const res = await ctx.caller.req('POST', `/sandbox/customers/${live}/kyc`, body);
          expect(res.statusCode, JSON.stringify(body)).toBe(400);
          expect(expectErrorObject(res, 'bad body').code).toBe('INVALID_INPUT');
        }
        const production = await t.newCaller('production', ctx.caller);
        const own = await insertTestCustomer(t, production);
        const res = await production.req('POST', `/sandbox/customers/${own}/kyc`, { status: 'APPROVED' });
        expect(res.statusCode).toBe(404);
        expect(expectErrorObject(res, 'production').code).toBe('REFERENCE_NOT_FOUND');
        expect(statusOf((await production.req('GET', `/customers/${own}`)).json())).toBe('UNVERIFIED');
      });
    });
  },
);
