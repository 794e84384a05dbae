import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorker } from '../../src/jobs/index.js';
import type { Worker } from '../../src/jobs/worker.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectReceiver, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const currency = (code: string) => ({ currencyCode: code, minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [] });

describeEachEngine('UMA invitations, UMA providers, discoveries, VASPs and withdrawal fee estimates', (t) => {
  let receiver: WebhookReceiver;
  let worker: Worker;
  let caller: Caller;
  let inviterUma: string;
  let customerId: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    caller = await t.newCaller();
    await connectReceiver(caller, receiver);
    worker = startWorker(t.services, t.app.log);
    const config = await caller.req('PATCH', '/config', { supportedCurrencies: ['USD', 'BTC'].map(currency) });
    expect(config.statusCode, config.body).toBe(200);
    const customer = await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'inv-1', currencies: ['BTC'] });
    expect(customer.statusCode, customer.body).toBe(201);
    inviterUma = customer.json().umaAddress;
    customerId = customer.json().id;
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.stop();
  });

  const claimedEvents = (code: string) => receiver.verifiedUnique().filter((d) => d.payload?.type === 'INVITATION.CLAIMED' && (d.payload.data as { code: string }).code === code);

  it('creates an invitation, claims it once with one verified INVITATION.CLAIMED, and refuses a second claim or a cancel', async () => {
    const created = await caller.req('POST', '/invitations', { inviterUma, firstName: 'Ada', amountToSend: 2500 });
    expect(created.statusCode, created.body).toBe(201);
    const invitation = created.json();
    expect(invitation).toMatchObject({ inviterUma, status: 'PENDING', firstName: 'Ada', amountToSend: { amount: 2500, currency: { code: 'BTC', decimals: 8 } } });
    expect(invitation.url).toContain(invitation.code);
    expect((await caller.req('GET', `/invitations/${invitation.code}`)).json()).toEqual(invitation);

    const claim = await caller.req('POST', `/invitations/${invitation.code}/claim`, { inviteeUma: '$friend@wallet.example' });
    expect(claim.statusCode, claim.body).toBe(200);
    const claimed = claim.json();
    expect(claimed).toMatchObject({ code: invitation.code, status: 'CLAIMED', inviteeUma: '$friend@wallet.example', claimedAt: expect.any(String) });

    const [event] = await until('INVITATION.CLAIMED delivered', async () => (claimedEvents(invitation.code).length > 0 ? claimedEvents(invitation.code) : undefined));
    expect(event!.payload!.data).toEqual(claimed);
    expect(expectErrorObject(await caller.req('POST', `/invitations/${invitation.code}/claim`, { inviteeUma: '$other@wallet.example' }), 'second claim').code).toBe('INVITATION_ALREADY_CLAIMED');
    expect(expectErrorObject(await caller.req('POST', `/invitations/${invitation.code}/cancel`), 'cancel claimed').code).toBe('INVITATION_ALREADY_CLAIMED');
    // The refused claim sent nothing: the webhook log holds exactly one INVITATION.CLAIMED for this code.
    const log = (await caller.req('GET', '/webhook-events?limit=100')).json().data.filter((e: any) => e.type === 'INVITATION.CLAIMED');
    expect(log).toHaveLength(1);
    expect(claimedEvents(invitation.code)).toHaveLength(1);
  });

  it('a cancelled invitation cannot be claimed; an expired one reads EXPIRED on the platform clock and cannot be claimed either', async () => {
    const cancelled = (await caller.req('POST', '/invitations', { inviterUma })).json();
    const cancel = await caller.req('POST', `/invitations/${cancelled.code}/cancel`);
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json().status).toBe('CANCELLED');
    expect(expectErrorObject(await caller.req('POST', `/invitations/${cancelled.code}/claim`, { inviteeUma: '$x@wallet.example' }), 'claim cancelled').code).toBe('INVITATION_CANCELLED');

    const now = (await caller.req('GET', '/sandbox/clock')).json().now as string;
    const expiring = (await caller.req('POST', '/invitations', { inviterUma, expiresAt: new Date(Date.parse(now) + 60_000).toISOString() })).json();
    expect(expiring.status).toBe('PENDING');
    await caller.req('POST', '/sandbox/clock/advance', { seconds: 61 });
    expect((await caller.req('GET', `/invitations/${expiring.code}`)).json().status).toBe('EXPIRED');
    expect(expectErrorObject(await caller.req('POST', `/invitations/${expiring.code}/claim`, { inviteeUma: '$x@wallet.example' }), 'claim expired').code).toBe('INVITATION_CANCELLED');
  });

  it('refuses bad invitations with the document\'s codes, and keeps each platform\'s invitations its own', async () => {
    expect(expectErrorObject(await caller.req('POST', '/invitations', { inviterUma: 'nobody' }), 'malformed').code).toBe('INVALID_UMA_ADDRESS');
    const stranger = expectErrorObject(await caller.req('POST', '/invitations', { inviterUma: '$stranger@wallet.example', expiresAt: '2001-01-01T00:00:00Z' }), 'stranger');
    expect((stranger.details!.errors as any[]).map((e) => e.field)).toEqual(['inviterUma', 'expiresAt']);
    const mine = (await caller.req('POST', '/invitations', { inviterUma })).json();
    expect(expectErrorObject(await caller.req('POST', `/invitations/${mine.code}/claim`, { inviteeUma: inviterUma }), 'self').code).toBe('INVALID_INPUT');
    const other = await t.newCaller();
    expect(expectErrorObject(await other.req('GET', `/invitations/${mine.code}`), 'foreign').code).toBe('INVITATION_NOT_FOUND');
    expect(expectErrorObject(await other.req('POST', `/invitations/${mine.code}/claim`, { inviteeUma: '$x@wallet.example' }), 'foreign claim').code).toBe('INVITATION_NOT_FOUND');
    const key = { 'idempotency-key': 'invite-once' };
    const first = await caller.req('POST', '/invitations', { inviterUma }, key);
    const again = await caller.req('POST', '/invitations', { inviterUma }, key);
    expect(again.json()).toEqual(first.json());
  });

  it('lists UMA providers filtered and paged, discoveries by corridor, and the VASP directory', async () => {
    const providers = (await caller.req('GET', '/uma-providers?currencyCode=USD&sortOrder=asc')).json();
    expect(providers.data.map((p: any) => p.name)).toEqual(['Example Wallet', 'Sandbox UMA']);
    expect(providers).toMatchObject({ hasMore: false, totalCount: 2 });
    const allowed = (await caller.req('GET', '/uma-providers?hasBlockedProviders=false')).json();
    expect(allowed.data.every((p: any) => p.allowListStatus)).toBe(true);
    const first = (await caller.req('GET', '/uma-providers?limit=3')).json();
    expect(first).toMatchObject({ hasMore: true, nextCursor: '3' });
    const rest = (await caller.req('GET', `/uma-providers?limit=3&cursor=${first.nextCursor}`)).json();
    expect([...first.data, ...rest.data]).toHaveLength(4);
    expect(expectErrorObject(await caller.req('GET', '/uma-providers?cursor=zz'), 'bad cursor').code).toBe('INVALID_INPUT');

    const ph = (await caller.req('GET', '/discoveries?country=PH&currency=PHP')).json();
    expect(ph.data.length).toBeGreaterThan(0);
    expect(ph.data.every((d: any) => d.country === 'PH' && d.currency === 'PHP')).toBe(true);
    const vasps = (await caller.req('GET', '/vasps?limit=2')).json();
    expect(vasps).toMatchObject({ hasMore: true, nextCursor: '2' });
    expect(vasps.data[0].vaspName).toBe('Sandbox Exchange');
  });

  it('estimates a withdrawal fee from a crypto internal account, refusing a currency or network that does not fit', async () => {
    const accounts = (await caller.req('GET', `/customers/internal-accounts?customerId=${customerId}&currency=BTC`)).json().data;
    expect(accounts).toHaveLength(1);
    const body = { internalAccountId: accounts[0].id, currency: 'BTC', cryptoNetwork: 'BITCOIN', amount: 100_000, destinationAddress: 'tb1qexampleaddress0000000000000000000000' };
    const res = await caller.req('POST', '/crypto/estimate-withdrawal-fee', body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ networkFee: 1500, networkFeeAsset: 'BTC', applicationFee: 0, totalFee: 1500, netAmount: 98_500 });
    const wrong = expectErrorObject(await caller.req('POST', '/crypto/estimate-withdrawal-fee', { ...body, currency: 'USDC', cryptoNetwork: 'LIGHTNING' }), 'wrong');
    expect((wrong.details!.errors as any[]).map((e) => e.field)).toEqual(['currency', 'cryptoNetwork']);
    const small = expectErrorObject(await caller.req('POST', '/crypto/estimate-withdrawal-fee', { ...body, amount: 1500 }), 'small');
    expect((small.details!.errors as any[]).map((e) => e.field)).toEqual(['amount']);
    const other = await t.newCaller();
    expect(expectErrorObject(await other.req('POST', '/crypto/estimate-withdrawal-fee', body), 'foreign').code).toBe('REFERENCE_NOT_FOUND');
  });
});
