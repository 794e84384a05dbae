import { beforeAll, expect, it } from 'vitest';
import { newId } from '../../src/domain/shared/ids.js';
import { insertAccountIfAbsent } from '../../src/store/accounts-repo.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { activeCard, injectCall, insertTestCustomer, usdAccountOf, type ApiCall } from '../helpers/fixtures.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

describeEachEngine('funding-source suffixes on the account ids as given', (t) => {
  const ctx = connectedCaller(t);
  let call: ApiCall;

  beforeAll(async () => {
    call = injectCall(ctx.caller);
  });

  /** A USD account of the customer whose id ends in `suffix` (ids the service mints never do). */
  const accountEndingIn = async (c: Caller, customerId: string, suffix: string) => {
    const id = `${newId('InternalAccount').slice(0, -3)}${suffix}`;
    const now = Date.now();
    await t.services.store.transaction((uow) =>
      insertAccountIfAbsent(uow, { id, platform_id: c.platformId, customer_id: customerId, type: 'EMBEDDED_WALLET', status: 'ACTIVE', currency: 'USD', available_balance: 0, total_balance: 0, created_at: now, updated_at: now }),
    );
    return id;
  };
  const fundingChanges = (cardId: string) =>
    ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === 'CARD.FUNDING_SOURCE_CHANGE' && (d.payload.data as { id: string }).id === cardId).map((d) => d.payload!.data as Record<string, any>);
  const refusedFields = (res: { statusCode: number; json(): any }) => {
    expect(res.statusCode).toBe(400);
    return res.json().details.errors as { field: string; message: string }[];
  };

  it('002 and 003 on POST /cards are 400 FUNDING_SOURCE_INELIGIBLE naming each source and its reason, for existing accounts and ids as given alike', async () => {
    const holder = await insertTestCustomer(t, ctx.caller, 'INDIVIDUAL', 'APPROVED');
    const own = await usdAccountOf(call, holder);
    const ownEnding002 = await accountEndingIn(ctx.caller, holder, '002');
    const given003 = 'InternalAccount:sandbox-closed-003';
    const res = await ctx.caller.req('POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [own, ownEnding002, given003] });
    expectErrorObject(res, 'FUNDING_SOURCE_INELIGIBLE');
    expect(res.json().code).toBe('FUNDING_SOURCE_INELIGIBLE');
    const errors = refusedFields(res);
    expect(errors.map((e) => e.field)).toEqual(['fundingSources[1]', 'fundingSources[2]']);
    expect(errors[0]!.message).toMatch(/insufficient balance check/);
    expect(errors[1]!.message).toMatch(/closed/);
    expect((await call('GET', `/cards?cardholderId=${encodeURIComponent(holder)}`)).body.totalCount).toBe(0);
    const ok = await ctx.caller.req('POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [own] });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('on PATCH: 002/003 refused with the card unchanged and no webhook; any other suffix is bound with a verified CARD.FUNDING_SOURCE_CHANGE', async () => {
    const card = await activeCard(t, ctx.caller);
    const own = card.fundingSources[0] as string;
    for (const [suffix, reason] of [['002', /insufficient balance check/], ['003', /closed/]] as const) {
      const bad = `InternalAccount:given-as-is-${suffix}`;
      const res = await ctx.caller.req('PATCH', `/cards/${card.id}`, { fundingSources: [own, bad] });
      expectErrorObject(res, 'FUNDING_SOURCE_INELIGIBLE');
      expect(refusedFields(res)).toEqual([{ field: 'fundingSources[1]', message: expect.stringMatching(reason) }]);
    }
    expect((await call('GET', `/cards/${card.id}`)).body).toEqual(card);
    const wallet = await accountEndingIn(ctx.caller, card.cardholderId, '004');
    const res = await ctx.caller.req('PATCH', `/cards/${card.id}`, { fundingSources: [wallet, own] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().fundingSources).toEqual([wallet, own]);
    await ctx.receiver.waitFor(() => fundingChanges(card.id).length === 1);
    expect(fundingChanges(card.id)[0]).toEqual(res.json());
  });

  it('production has no sandbox suffixes: an account of the cardholder ending in 002 is bound', async () => {
    const production = await t.newCaller('production', ctx.caller);
    const holder = await insertTestCustomer(t, production, 'INDIVIDUAL', 'APPROVED');
    const account = await accountEndingIn(production, holder, '002');
    const res = await production.req('POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [account] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().fundingSources).toEqual([account]);
  });
});
