import { beforeAll, expect, it } from 'vitest';
import { insertAccountIfAbsent } from '../../src/store/accounts-repo.js';
import { setKycStatus } from '../../src/store/customers-repo.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { activeCard, injectCall, insertTestCustomer, issueCard, usdAccountOf, type ApiCall } from '../helpers/fixtures.js';
import { activeFundedCard } from '../helpers/money.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

describeEachEngine('card lifecycle, funding sources and issuance rules', (t) => {
  const ctx = connectedCaller(t);
  let call: ApiCall;

  beforeAll(async () => {
    call = injectCall(ctx.caller);
  });

  /** Verified deliveries of `type` about the card, in arrival order. */
  const delivered = (type: string, cardId: string) =>
    ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === type && (d.payload.data as { id: string }).id === cardId).map((d) => d.payload!.data as Record<string, any>);
  /** The card's events of `type` as recorded, in order. */
  const recorded = async (type: string, cardId: string) =>
    (await t.services.store.db.selectFrom('webhook_events').select('body').where('platform_id', '=', ctx.caller.platformId).where('type', '=', type).orderBy('created_at').orderBy('id').execute())
      .map((e) => JSON.parse(e.body).data)
      .filter((d: { id: string }) => d.id === cardId);
  const patch = (cardId: string, body: unknown, c: Caller = ctx.caller) => c.req('PATCH', `/cards/${cardId}`, body);
  const expectRefused = (res: Awaited<ReturnType<typeof patch>>, status: number, code: string, currentStatus?: string) => {
    expect(res.statusCode, res.body).toBe(status);
    expect(expectErrorObject(res, code).code).toBe(code);
    if (currentStatus) expect(res.json().details).toMatchObject({ currentStatus });
  };
  /** Another USD account of the customer (the default one is INTERNAL_FIAT), or an account in another currency. */
  const extraAccount = async (customerId: string, type: string, currency = 'USD') => {
    const id = `InternalAccount:${customerId.slice(-12)}-${type.toLowerCase()}-${currency.toLowerCase()}`;
    const now = Date.now();
    await t.services.store.transaction((uow) => insertAccountIfAbsent(uow, { id, platform_id: ctx.caller.platformId, customer_id: customerId, type, status: 'ACTIVE', currency, available_balance: 0, total_balance: 0, created_at: now, updated_at: now }));
    return id;
  };

  it('issues a card PROCESSING with brand, last4, expiry and currency, which becomes ACTIVE with a verified CARD.STATE_CHANGE', async () => {
    const holder = (await call('POST', '/customers', { customerType: 'INDIVIDUAL' })).body.id as string;
    const account = await usdAccountOf(call, holder);
    const card = await issueCard(call, holder, { platformCardId: 'emp-lifecycle-1' });
    const year = new Date().getUTCFullYear();
    expect(card).toMatchObject({ cardholderId: holder, state: 'PROCESSING', stateReason: null, brand: 'VISA', form: 'VIRTUAL', currency: 'USD', fundingSources: [account], platformCardId: 'emp-lifecycle-1' });
    expect(card.last4).toMatch(/^\d{4}$/);
    expect(card.expMonth).toBeGreaterThanOrEqual(1);
    expect(card.expMonth).toBeLessThanOrEqual(12);
    expect(card.expYear).toBeGreaterThan(year);
    await ctx.receiver.waitFor(() => delivered('CARD.STATE_CHANGE', card.id).length > 0);
    const [activated] = delivered('CARD.STATE_CHANGE', card.id);
    const now = (await call('GET', `/cards/${card.id}`)).body;
    expect(now).toMatchObject({ ...card, state: 'ACTIVE', updatedAt: expect.any(String) });
    expect(activated).toEqual(now);
    expect(ctx.receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
  });

  it('freezes, unfreezes and closes a card, each change answered with the card and sent as CARD.STATE_CHANGE', async () => {
    const card = await activeCard(t, ctx.caller);
    const steps: [string, Record<string, unknown>][] = [
      ['FROZEN', { state: 'FROZEN', stateReason: null }],
      ['ACTIVE', { state: 'ACTIVE', stateReason: null }],
      ['FROZEN', { state: 'FROZEN', stateReason: null }],
      ['CLOSED', { state: 'CLOSED', stateReason: 'CLOSED_BY_PLATFORM' }],
    ];
    for (const [state, expected] of steps) {
      const res = await patch(card.id, { state });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: card.id, ...expected, fundingSources: card.fundingSources });
      expect((await call('GET', `/cards/${card.id}`)).body).toEqual(res.json());
    }
    expect((await recorded('CARD.STATE_CHANGE', card.id)).map((d: { state: string }) => d.state)).toEqual(['ACTIVE', 'FROZEN', 'ACTIVE', 'FROZEN', 'CLOSED']);
    await ctx.receiver.waitFor(() => delivered('CARD.STATE_CHANGE', card.id).length === 5);
    expect(delivered('CARD.STATE_CHANGE', card.id).map((d) => d.state).sort()).toEqual(['ACTIVE', 'ACTIVE', 'CLOSED', 'FROZEN', 'FROZEN']);
    expect(await recorded('CARD.FUNDING_SOURCE_CHANGE', card.id)).toEqual([]);
  });

  it('refuses every illegal change with 409 and changes nothing; a production card stays PROCESSING and cannot be closed', async () => {
    // Production: no issuer is connected, so a card stays PROCESSING (its cardholder approved as a KYC provider would).
    const production = await t.newCaller('production', ctx.caller);
    const prodHolder = await insertTestCustomer(t, production, 'INDIVIDUAL', 'APPROVED');
    const prodAccount = await usdAccountOf(injectCall(production), prodHolder);
    const processing = await production.req('POST', '/cards', { cardholderId: prodHolder, form: 'VIRTUAL', fundingSources: [prodAccount] });
    expect(processing.statusCode, processing.body).toBe(201);
    const processingId = processing.json().id as string;
    const active = await activeCard(t, ctx.caller);
    const frozen = await activeCard(t, ctx.caller);
    expect((await patch(frozen.id, { state: 'FROZEN' })).statusCode).toBe(200);
    const closed = await activeCard(t, ctx.caller);
    expect((await patch(closed.id, { state: 'CLOSED' })).statusCode).toBe(200);
    const account = active.fundingSources[0] as string;
    const before = new Map<string, unknown>();
    for (const id of [active.id, frozen.id, closed.id]) before.set(id, (await call('GET', `/cards/${id}`)).body);
    const eventsBefore = async (id: string) => (await recorded('CARD.STATE_CHANGE', id)).length + (await recorded('CARD.FUNDING_SOURCE_CHANGE', id)).length;
    const counts = new Map<string, number>();
    for (const id of [active.id, frozen.id, closed.id]) counts.set(id, await eventsBefore(id));

    expectRefused(await patch(processingId, { state: 'FROZEN' }, production), 409, 'INVALID_STATE_TRANSITION', 'PROCESSING');
    expectRefused(await patch(processingId, { state: 'ACTIVE' }, production), 409, 'INVALID_STATE_TRANSITION', 'PROCESSING');
    expectRefused(await patch(active.id, { state: 'ACTIVE' }), 409, 'INVALID_STATE_TRANSITION', 'ACTIVE');
    expectRefused(await patch(frozen.id, { state: 'FROZEN' }), 409, 'INVALID_STATE_TRANSITION', 'FROZEN');
    expectRefused(await patch(closed.id, { state: 'ACTIVE' }), 409, 'INVALID_STATE_TRANSITION', 'CLOSED');
    expectRefused(await patch(closed.id, { state: 'FROZEN' }), 409, 'INVALID_STATE_TRANSITION', 'CLOSED');
    expectRefused(await patch(closed.id, { state: 'CLOSED' }), 409, 'CARD_ALREADY_CLOSED', 'CLOSED');
    expectRefused(await patch(closed.id, { fundingSources: [account] }), 409, 'CARD_NOT_MUTABLE', 'CLOSED');
    expectRefused(await patch(active.id, {}), 400, 'INVALID_INPUT');
    expectRefused(await patch(active.id, { state: 'CLOSED', fundingSources: [account] }), 400, 'INVALID_INPUT');
    expectRefused(await patch(active.id, { state: 'PROCESSING' }), 400, 'INVALID_INPUT');
    expectRefused(await patch(active.id, { state: 'FROZEN', colour: 'red' }), 400, 'INVALID_INPUT');
    expectRefused(await patch(active.id, { fundingSources: [] }), 400, 'INVALID_INPUT');
    expectRefused(await patch('Card:019542f5-b3e7-7d02-8000-00000000dead', { state: 'FROZEN' }), 404, 'REFERENCE_NOT_FOUND');
    for (const id of [active.id, frozen.id, closed.id]) {
      expect((await call('GET', `/cards/${id}`)).body, id).toEqual(before.get(id));
      expect(await eventsBefore(id), id).toBe(counts.get(id));
    }

    // The production card never became ACTIVE (no job); only an ACTIVE or FROZEN card may be closed, as the document lists the transitions.
    expect((await production.req('GET', `/cards/${processingId}`)).json().state).toBe('PROCESSING');
    expectRefused(await patch(processingId, { state: 'CLOSED' }, production), 409, 'INVALID_STATE_TRANSITION', 'PROCESSING');
    expect((await production.req('GET', `/cards/${processingId}`)).json()).toMatchObject({ state: 'PROCESSING', stateReason: null });
  });

  it("refuses funding sources that are unknown, another platform's, another customer's or in another currency, naming each", async () => {
    const holder = await insertTestCustomer(t, ctx.caller, 'INDIVIDUAL', 'APPROVED');
    const own = await usdAccountOf(call, holder);
    const otherCustomer = await usdAccountOf(call, await insertTestCustomer(t, ctx.caller));
    const otherPlatform = await t.newCaller();
    const foreign = await usdAccountOf(injectCall(otherPlatform), await insertTestCustomer(t, otherPlatform));
    const euro = await extraAccount(holder, 'INTERNAL_FIAT', 'EUR');
    const unknown = 'InternalAccount:019542f5-b3e7-7d02-8000-00000000dead';
    const issue = (fundingSources: unknown) => ctx.caller.req('POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources });

    // The document states no limit on the list: eleven sources are checked one by one, not refused as too many.
    const many = await issue([own, ...Array.from({ length: 10 }, (_, i) => `InternalAccount:019542f5-b3e7-7d02-8000-0000000000${10 + i}`)]);
    expectRefused(many, 400, 'FUNDING_SOURCE_INELIGIBLE');
    expect(many.json().details.errors).toHaveLength(10);
    const all = await issue([own, unknown, foreign, otherCustomer, euro]);
    expectRefused(all, 400, 'FUNDING_SOURCE_INELIGIBLE');
    expect(all.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['fundingSources[1]', 'fundingSources[2]', 'fundingSources[3]', 'fundingSources[4]']);
    // Unknown and foreign read alike; another customer's and another currency's say why.
    const [u, f, o, e] = all.json().details.errors.map((x: { message: string }) => x.message);
    expect(f).toBe(u);
    expect(o).toMatch(/another customer/);
    expect(e).toMatch(/EUR.*USD/);
    for (const bad of [unknown, foreign, otherCustomer, euro]) {
      const res = await issue([bad]);
      expectRefused(res, 400, 'FUNDING_SOURCE_INELIGIBLE');
      expect(res.json().details.errors).toEqual([expect.objectContaining({ field: 'fundingSources[0]' })]);
    }
    for (const missing of [undefined, []]) {
      const res = await issue(missing);
      expectRefused(res, 400, 'INVALID_INPUT');
      expect(res.json().details.errors.map((x: { field: string }) => x.field)).toEqual(['fundingSources']);
    }
    expect((await call('GET', `/cards?cardholderId=${encodeURIComponent(holder)}`)).body.totalCount).toBe(0);
    expect((await issue([own])).statusCode).toBe(201);
  });

  it('replaces the funding sources (order kept) with CARD.FUNDING_SOURCE_CHANGE, checked as on issuance', async () => {
    const card = await activeCard(t, ctx.caller);
    const usd = card.fundingSources[0] as string;
    const wallet = await extraAccount(card.cardholderId, 'EMBEDDED_WALLET');
    const res = await patch(card.id, { fundingSources: [wallet, usd] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: card.id, state: 'ACTIVE', fundingSources: [wallet, usd] });
    expect((await call('GET', `/cards?accountId=${encodeURIComponent(wallet)}`)).body.data.map((c: { id: string }) => c.id)).toEqual([card.id]);
    await ctx.receiver.waitFor(() => delivered('CARD.FUNDING_SOURCE_CHANGE', card.id).length === 1);
    expect(delivered('CARD.FUNDING_SOURCE_CHANGE', card.id)[0]).toEqual(res.json());

    const otherCustomer = await usdAccountOf(call, await insertTestCustomer(t, ctx.caller));
    const refused = await patch(card.id, { fundingSources: [usd, otherCustomer] });
    expectRefused(refused, 400, 'FUNDING_SOURCE_INELIGIBLE');
    expect(refused.json().details.errors).toEqual([expect.objectContaining({ field: 'fundingSources[1]' })]);
    expect((await call('GET', `/cards/${card.id}`)).body.fundingSources).toEqual([wallet, usd]);

    // Both at once: one event of each type.
    const both = await patch(card.id, { state: 'FROZEN', fundingSources: [usd] });
    expect(both.json()).toMatchObject({ state: 'FROZEN', fundingSources: [usd] });
    expect((await recorded('CARD.FUNDING_SOURCE_CHANGE', card.id)).map((d: { fundingSources: string[] }) => d.fundingSources)).toEqual([[wallet, usd], [usd]]);
    expect((await recorded('CARD.STATE_CHANGE', card.id)).map((d: { state: string }) => d.state)).toEqual(['ACTIVE', 'FROZEN']);
  });

  it('refuses a card until the cardholder is APPROVED, for individuals (KYC) and businesses (KYB)', async () => {
    for (const type of ['INDIVIDUAL', 'BUSINESS'] as const) {
      const holder = await insertTestCustomer(t, ctx.caller, type);
      const account = await usdAccountOf(call, holder);
      const issue = () => ctx.caller.req('POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [account] });
      for (const status of ['UNVERIFIED', 'PENDING', 'REJECTED', 'HOLD']) {
        if (status !== 'UNVERIFIED') expect((await call('POST', `/sandbox/customers/${holder}/kyc`, { status })).status).toBe(200);
        const res = await issue();
        expectRefused(res, 400, 'CARDHOLDER_KYC_NOT_APPROVED');
        expect(res.json().details).toEqual({ customerId: holder, kycStatus: status });
      }
      expect((await call('GET', `/cards?cardholderId=${encodeURIComponent(holder)}`)).body.totalCount).toBe(0);
      expect((await call('POST', `/sandbox/customers/${holder}/kyc`, { status: 'APPROVED' })).status).toBe(200);
      expect((await issue()).statusCode, type).toBe(201);
      // Approval taken back: no new card.
      await setKycStatus(t.services.store.db, ctx.caller.platformId, holder, 'REJECTED', Date.now());
      expectRefused(await issue(), 400, 'CARDHOLDER_KYC_NOT_APPROVED');
    }
  });

  it('declines authorizations CARD_PAUSED while the card is FROZEN (through PATCH), and approves them again once unfrozen', async () => {
    const { cardId } = await activeFundedCard(t, ctx.caller, 10_000);
    const authorize = async (descriptor: string) => {
      const res = await ctx.caller.req('POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount: 100, currency: { code: 'USD' }, merchant: { descriptor } });
      expect(res.statusCode, res.body).toBe(202);
      const id = res.json().cardTransactionId as string;
      return until(`transaction ${id} landed`, async () => {
        const got = await ctx.caller.req('GET', `/transactions/${id}`);
        return got.statusCode === 200 ? got.json() : undefined;
      });
    };
    expect((await patch(cardId, { state: 'FROZEN' })).statusCode).toBe(200);
    expect(await authorize('WHILE FROZEN')).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED' });
    expect((await patch(cardId, { state: 'ACTIVE' })).statusCode).toBe(200);
    expect(await authorize('UNFROZEN')).toMatchObject({ status: 'AUTHORIZED' });
  });
});
