import { expect } from 'vitest';
import { newId } from '../../src/domain/shared/ids.js';
import { insertCustomer } from '../../src/store/customers-repo.js';
import type { CustomerType } from '../../src/store/tables/customers.js';
import { provisionCards } from './card-jobs.js';
import type { Caller, TestApp } from './test-app.js';
import { until } from './until.js';

/** Inserts a customer straight through the store, for tests of features that only need one to exist. */
export async function insertTestCustomer(t: Pick<TestApp, 'services'>, caller: Pick<Caller, 'platformId'>, type: CustomerType = 'BUSINESS', kycStatus = 'UNVERIFIED'): Promise<string> {
  const id = newId('Customer');
  const now = Date.now();
  await t.services.store.transaction((uow) => insertCustomer(uow, {
    id,
    platform_id: caller.platformId,
    customer_type: type,
    platform_customer_id: `ext-${id.slice(-12)}`,
    kyc_status: kycStatus,
    data: '{}',
    owner_count: 0,
    uma_address: `$t${id.slice(-12)}@test.invalid`,
    is_deleted: 0,
    region: null,
    currency_list: '',
    created_at: now,
    updated_at: now,
  }));
  return id;
}

/** How a fixture calls the API, in process (inject) or over HTTP: the path is relative to the versioned base. */
export type ApiCall = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => Promise<{ status: number; body: any }>;

export const injectCall =
  (caller: Caller): ApiCall =>
  async (method, path, body) => {
    const res = await caller.req(method, path, body);
    return { status: res.statusCode, body: res.body === '' ? undefined : res.json() };
  };

/** `base` is the server's versioned base URL, `auth` its Authorization header value. */
export const fetchCall =
  (base: string, auth: string): ApiCall =>
  async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };

async function ok(what: string, answer: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const res = await answer;
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** The customer's USD INTERNAL_FIAT account id (the one every customer gets). */
export async function usdAccountOf(call: ApiCall, customerId: string): Promise<string> {
  const page = await ok('list internal accounts', call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD&type=INTERNAL_FIAT`));
  expect(page.data, `${customerId} has a USD internal account`).toHaveLength(1);
  return page.data[0].id as string;
}

/**
 * Makes the customer a cardholder the documented way, and answers its USD internal account id (the
 * funding source of its cards): a business not yet APPROVED is submitted with POST /verifications
 * (without a 001/002/003 registration number the sandbox approves it); an individual must already
 * be APPROVED (a sandbox individual with a plain fullName is, from its creation).
 */
export async function approvedCardholder(call: ApiCall, customerId: string): Promise<string> {
  const customer = await ok('get the customer', call('GET', `/customers/${encodeURIComponent(customerId)}`));
  if (customer.customerType === 'BUSINESS' && customer.kybStatus !== 'APPROVED') {
    const verification = await ok('verify the business', call('POST', '/verifications', { customerId }));
    expect(verification.verificationStatus, JSON.stringify(verification)).toBe('APPROVED');
  }
  if (customer.customerType === 'INDIVIDUAL') expect(customer.kycStatus, `individual ${customerId} must be created APPROVED (a plain fullName)`).toBe('APPROVED');
  return usdAccountOf(call, customerId);
}

/** A sandbox individual created through the API with a plain fullName: APPROVED from its creation. */
export async function approvedIndividual(call: ApiCall, fullName = 'Casey Holder'): Promise<string> {
  const customer = await ok('create an individual', call('POST', '/customers', { customerType: 'INDIVIDUAL', fullName }), 201);
  expect(customer.kycStatus).toBe('APPROVED');
  return customer.id as string;
}

/** Issues a card (PROCESSING) to an approved cardholder, funded by its USD internal account; `extra` adds to the body. */
export async function issueCard(call: ApiCall, cardholderId: string, extra: Record<string, unknown> = {}): Promise<any> {
  const accountId = await approvedCardholder(call, cardholderId);
  return ok('issue a card', call('POST', '/cards', { cardholderId, form: 'VIRTUAL', fundingSources: [accountId], ...extra }), 201);
}

/** Waits until the card is ACTIVE, for a server whose worker provisions cards. */
export async function untilActive(call: ApiCall, cardId: string): Promise<any> {
  return until(`card ${cardId} ACTIVE`, async () => {
    const card = await ok('get the card', call('GET', `/cards/${encodeURIComponent(cardId)}`));
    return card.state === 'ACTIVE' ? card : undefined;
  });
}

/** Over a server process with a worker: a card issued and ACTIVE. */
export async function activeCardOver(call: ApiCall, cardholderId: string, extra: Record<string, unknown> = {}): Promise<any> {
  return untilActive(call, (await issueCard(call, cardholderId, extra)).id);
}

/**
 * In a test app without a worker (describeEachEngine): a card issued to `cardholderId` (a new
 * customer of the caller's platform when not given) and made ACTIVE by running its provisioning job.
 */
export async function activeCard(t: TestApp, caller: Caller = t.caller, cardholderId?: string, extra: Record<string, unknown> = {}): Promise<any> {
  const call = injectCall(caller);
  const card = await issueCard(call, cardholderId ?? (await insertTestCustomer(t, caller)), extra);
  await provisionCards(t.services, t.app.log);
  return ok('get the card', call('GET', `/cards/${encodeURIComponent(card.id)}`));
}
