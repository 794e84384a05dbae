import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KYC_STATUSES } from '../../src/domain/customers/beneficial-owners.js';
import { KYC_AUTO_APPROVAL_JOB } from '../../src/domain/customers/kyc.js';
import { startWorker } from '../../src/jobs/index.js';
import type { Worker } from '../../src/jobs/worker.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { businessCustomer } from '../helpers/owners.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectReceiver, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const DELAY_MS = 300;

describeEachEngine(
  'sandbox KYC: automatic approval and POST /sandbox/customers/{customerId}/kyc',
  (t) => {
    let receiver: WebhookReceiver;
    let worker: Worker;
    let caller: Caller;

    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      caller = await t.newCaller();
      await connectReceiver(caller, receiver);
      worker = startWorker(t.services, t.app.log);
    });
    afterAll(async () => {
      await worker?.stop();
      await receiver?.stop();
    });

    const create = async (c: Caller, body: unknown) => {
      const res = await c.req('POST', '/customers', body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const statusOf = (customer: { kycStatus?: string; kybStatus?: string }) => customer.kycStatus ?? customer.kybStatus;
    /** Verified deliveries about the customer, in arrival order. */
    const delivered = (customerId: string) => receiver.verifiedUnique().filter((d) => (d.payload?.data as { id?: string } | undefined)?.id === customerId);
    /** The customer's CUSTOMER.* events as recorded, in order. */
    const recorded = async (platformId: string, customerId: string) =>
      (await t.services.store.db.selectFrom('webhook_events').select(['type', 'body']).where('platform_id', '=', platformId).where('type', 'like', 'CUSTOMER.%').orderBy('created_at').orderBy('id').execute())
        .filter((e) => JSON.parse(e.body).data.id === customerId)
        .map((e) => e.type);
    /** Once the customer's approval job, if any, has run: how many were queued for it. */
    const approvalJobsSettled = async (customerId: string) =>
      until(`auto-approval job of ${customerId} done`, async () => {
        const jobs = await t.services.store.db.selectFrom('jobs').select(['state', 'payload']).where('kind', '=', KYC_AUTO_APPROVAL_JOB).execute();
        const mine = jobs.filter((j) => JSON.parse(j.payload).customerId === customerId);
        return mine.every((j) => j.state === 'done') ? mine.length : undefined;
      });

    it('approves a new individual (KYC) and business (KYB) shortly after creation, with a verified CUSTOMER.KYC_APPROVED / KYB_APPROVED', async () => {
      const individual = await create(caller, { customerType: 'INDIVIDUAL' });
      const business = await create(caller, businessCustomer());
      expect(individual.kycStatus).toBe('UNVERIFIED');
      expect(business.kybStatus).toBe('UNVERIFIED');
      for (const [customer, type] of [
        [individual, 'CUSTOMER.KYC_APPROVED'],
        [business, 'CUSTOMER.KYB_APPROVED'],
      ] as const) {
        await receiver.waitFor(() => delivered(customer.id).some((d) => d.payload?.type === type));
        const now = (await caller.req('GET', `/customers/${customer.id}`)).json();
        expect(statusOf(now)).toBe('APPROVED');
        const hook = delivered(customer.id).find((d) => d.payload?.type === type)!;
        expect(hook.verified).toBe(true);
        expect(hook.payload!.data).toEqual(now);
        expect(Date.parse(now.updatedAt) - Date.parse(customer.createdAt)).toBeGreaterThanOrEqual(DELAY_MS - 5);
        expect(await recorded(caller.platformId, customer.id)).toEqual([type]);
      }
    });

    it('leaves new customers UNVERIFIED while the platform has sandboxKycAutoApproval off, and approves them again once it is on', async () => {
      const off = await t.newCaller();
      const config = await off.req('PATCH', '/config', { sandboxKycAutoApproval: false });
      expect(config.json().sandboxKycAutoApproval).toBe(false);
      expect((await off.req('GET', '/config')).json().sandboxKycAutoApproval).toBe(false);
      const customer = await create(off, { customerType: 'INDIVIDUAL' });
      // The approval job is queued in the transaction that creates the customer: none, none ever runs.
      expect(await approvalJobsSettled(customer.id)).toBe(0);
      expect(statusOf((await off.req('GET', `/customers/${customer.id}`)).json())).toBe('UNVERIFIED');
      expect(await recorded(off.platformId, customer.id)).toEqual([]);

      // Turned off after a customer's approval was queued: that one is not approved either.
      const on = await off.req('PATCH', '/config', { sandboxKycAutoApproval: true });
      expect(on.json().sandboxKycAutoApproval).toBe(true);
      const queued = await create(off, { customerType: 'INDIVIDUAL' });
      await off.req('PATCH', '/config', { sandboxKycAutoApproval: false });
      expect(await approvalJobsSettled(queued.id)).toBe(1);
      expect(statusOf((await off.req('GET', `/customers/${queued.id}`)).json())).toBe('UNVERIFIED');

      await off.req('PATCH', '/config', { sandboxKycAutoApproval: true });
      const later = await create(off, { customerType: 'INDIVIDUAL' });
      expect(await approvalJobsSettled(later.id)).toBe(1);
      expect(statusOf((await off.req('GET', `/customers/${later.id}`)).json())).toBe('APPROVED');
      expect(await recorded(off.platformId, later.id)).toEqual(['CUSTOMER.KYC_APPROVED']);
    });

    it('never approves a production customer by itself', async () => {
      const production = await t.newCaller('production', caller);
      const customer = await create(production, { customerType: 'INDIVIDUAL' });
      // The approval job is queued in the transaction that creates the customer: none, none ever runs.
      expect(await approvalJobsSettled(customer.id)).toBe(0);
      expect(statusOf((await production.req('GET', `/customers/${customer.id}`)).json())).toBe('UNVERIFIED');
      expect(await recorded(production.platformId, customer.id)).toEqual([]);
    });

    it('sets each status with its webhook: CUSTOMER.KYC_/KYB_ PENDING, APPROVED and REJECTED; none for UNVERIFIED and HOLD', async () => {
      const quiet = await t.newCaller();
      await connectReceiver(quiet, receiver);
      await quiet.req('PATCH', '/config', { sandboxKycAutoApproval: false });
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
        await receiver.waitFor(() => delivered(id).length === expected.length);
        expect(delivered(id).map((d) => d.payload!.type).sort()).toEqual([...expected].sort());
        expect(delivered(id).every((d) => d.verified)).toBe(true);
      }
    });

    it('keeps a status set before the automatic approval', async () => {
      const customer = await create(caller, { customerType: 'INDIVIDUAL' });
      expect((await caller.req('POST', `/sandbox/customers/${customer.id}/kyc`, { status: 'REJECTED' })).statusCode).toBe(200);
      expect(await approvalJobsSettled(customer.id)).toBe(1);
      expect(statusOf((await caller.req('GET', `/customers/${customer.id}`)).json())).toBe('REJECTED');
      expect(await recorded(caller.platformId, customer.id)).toEqual(['CUSTOMER.KYC_REJECTED']);
    });

    describe('refusals', () => {
      it('answers 404 for an unknown or foreign customer, 410 for a deleted one, 400 for a status outside the enum, 404 in production', async () => {
        const other = await t.newCaller();
        const foreign = await insertTestCustomer(t, other);
        for (const id of ['Customer:019542f5-b3e7-7d02-8000-00000000dead', foreign]) {
          const res = await caller.req('POST', `/sandbox/customers/${id}/kyc`, { status: 'APPROVED' });
          expect(res.statusCode, res.body).toBe(404);
          expect(expectErrorObject(res, id).code).toBe('USER_NOT_FOUND');
        }
        const deleted = await insertTestCustomer(t, caller);
        await caller.req('DELETE', `/customers/${deleted}`);
        const gone = await caller.req('POST', `/sandbox/customers/${deleted}/kyc`, { status: 'APPROVED' });
        expect(gone.statusCode).toBe(410);
        expect(expectErrorObject(gone, 'deleted').code).toBe('CUSTOMER_DELETED');
        const live = await insertTestCustomer(t, caller);
        for (const body of [{ status: 'VERIFIED' }, {}, { status: 'APPROVED', reason: 'x' }]) {
          const res = await caller.req('POST', `/sandbox/customers/${live}/kyc`, body);
          expect(res.statusCode, JSON.stringify(body)).toBe(400);
          expect(expectErrorObject(res, 'bad body').code).toBe('INVALID_INPUT');
        }
        const production = await t.newCaller('production', caller);
        const own = await insertTestCustomer(t, production);
        const res = await production.req('POST', `/sandbox/customers/${own}/kyc`, { status: 'APPROVED' });
        expect(res.statusCode).toBe(404);
        expect(expectErrorObject(res, 'production').code).toBe('REFERENCE_NOT_FOUND');
        expect(statusOf((await production.req('GET', `/customers/${own}`)).json())).toBe('UNVERIFIED');
      });
    });
  },
  { SANDBOX_KYC_APPROVAL_DELAY_MS: String(DELAY_MS) },
);
