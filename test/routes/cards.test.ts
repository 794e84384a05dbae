import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { activeCard, approvedCardholder, approvedIndividual, injectCall, insertTestCustomer, issueCard } from '../helpers/fixtures.js';

describeEachEngine('cards and transactions', (t) => {
  let customerId: string;
  let other: Caller;

  beforeAll(async () => {
    customerId = await approvedIndividual(injectCall(t.caller));
    other = await t.newCaller();
  });

  describe('POST /cards', () => {
    it('issues a PROCESSING virtual card funded by the cardholder\'s USD account', async () => {
      const accountId = await approvedCardholder(injectCall(t.caller), customerId);
      const res = await t.caller.req('POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', platformCardId: 'emp-001', fundingSources: [accountId] });
      expect(res.statusCode).toBe(201);
      const card = res.json();
      expect(card).toMatchObject({ cardholderId: customerId, form: 'VIRTUAL', state: 'PROCESSING', stateReason: null, platformCardId: 'emp-001', currency: 'USD', fundingSources: [accountId], maxSpendPerTransaction: null });
      expect(card.id).toMatch(/^Card:[0-9a-f-]{36}$/);
      expect(card.last4).toMatch(/^\d{4}$/);
      const got = await t.caller.req('GET', `/cards/${card.id}`);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(card);
    });

    it('refuses a cardholder that is not a customer of the platform with 400 on cardholderId', async () => {
      const foreign = await insertTestCustomer(t, other);
      for (const cardholderId of [foreign, 'Customer:unknown']) {
        const res = await t.caller.req('POST', '/cards', { cardholderId, form: 'VIRTUAL', fundingSources: ['InternalAccount:any'] });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { errors: [{ field: 'cardholderId' }] } });
      }
    });

    it('reports every invalid field at once', async () => {
      const res = await t.caller.req('POST', '/cards', { form: 'PHYSICAL', colour: 'red' });
      expect(res.statusCode).toBe(400);
      const fields = res.json().details.errors.map((e: { field: string }) => e.field).sort();
      expect(fields).toEqual(['cardholderId', 'colour', 'form', 'fundingSources']);
      expect(res.json().details.errors.find((e: { field: string }) => e.field === 'form').constraint).toEqual({ enum: ['VIRTUAL'] });
    });

    it('answers 404 for an unknown or foreign card', async () => {
      const foreignCustomer = await insertTestCustomer(t, other);
      const foreign = await issueCard(injectCall(other), foreignCustomer);
      for (const id of [foreign.id, 'Card:nope']) {
        const res = await t.caller.req('GET', `/cards/${id}`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      }
    });
  });

  describe('maxSpendPerTransaction', () => {
    const patch = (cardId: string, body: unknown) => t.caller.req('PATCH', `/cards/${cardId}`, body);
    const limitOf = async (cardId: string) => (await t.caller.req('GET', `/cards/${cardId}`)).json().maxSpendPerTransaction;
    const expectInvalid = (res: { statusCode: number; body: string; json(): any }, field = 'maxSpendPerTransaction') => {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_INPUT' });
      expect(res.json().details.errors.map((e: { field: string }) => e.field)).toContain(field);
    };

    it('is returned as issued, by GET and in the list; without it the card has null', async () => {
      const holder = await insertTestCustomer(t, t.caller);
      const limited = await issueCard(injectCall(t.caller), holder, { maxSpendPerTransaction: 5_000 });
      const open = await issueCard(injectCall(t.caller), holder);
      expect(limited.maxSpendPerTransaction).toBe(5_000);
      expect(open.maxSpendPerTransaction).toBeNull();
      expect(await limitOf(limited.id)).toBe(5_000);
      expect(await limitOf(open.id)).toBeNull();
      const listed = (await t.caller.req('GET', `/cards?cardholderId=${encodeURIComponent(holder)}`)).json().data;
      expect(listed.map((c: { id: string; maxSpendPerTransaction: number | null }) => [c.id, c.maxSpendPerTransaction])).toEqual([
        [open.id, null],
        [limited.id, 5_000],
      ]);
    });

    it('refuses 0, a fraction, a string, a negative, an unsafe integer and (on issuance) null with 400 on the field, issuing nothing', async () => {
      const holder = await insertTestCustomer(t, t.caller);
      const accountId = await approvedCardholder(injectCall(t.caller), holder);
      for (const value of [0, 1.5, '5000', -1, Number.MAX_SAFE_INTEGER + 2, null]) {
        expectInvalid(await t.caller.req('POST', '/cards', { cardholderId: holder, form: 'VIRTUAL', fundingSources: [accountId], maxSpendPerTransaction: value }));
      }
      expect((await t.caller.req('GET', `/cards?cardholderId=${encodeURIComponent(holder)}`)).json().totalCount).toBe(0);
      const card = await issueCard(injectCall(t.caller), holder, { maxSpendPerTransaction: 1 });
      expect(card.maxSpendPerTransaction).toBe(1);
      for (const value of [0, 1.5, '5000', -1]) expectInvalid(await patch(card.id, { maxSpendPerTransaction: value }));
      expect(await limitOf(card.id)).toBe(1);
    });

    it('PATCH sets, replaces and (null) clears it; a PATCH without it leaves it; a state change webhook carries it', async () => {
      const card = await activeCard(t, t.caller);
      expect(card.maxSpendPerTransaction).toBeNull();
      for (const value of [2_500, 10_000, null, 7_000]) {
        const res = await patch(card.id, { maxSpendPerTransaction: value });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toMatchObject({ id: card.id, state: 'ACTIVE', maxSpendPerTransaction: value });
        expect(await limitOf(card.id)).toBe(value);
      }
      const frozen = await patch(card.id, { state: 'FROZEN' });
      expect(frozen.json()).toMatchObject({ state: 'FROZEN', maxSpendPerTransaction: 7_000 });
      const changes = (await t.services.store.db.selectFrom('webhook_events').select('body').where('type', '=', 'CARD.STATE_CHANGE').orderBy('id').execute())
        .map((e) => JSON.parse(e.body).data)
        .filter((d: { id: string }) => d.id === card.id);
      expect(changes.at(-1)).toMatchObject({ state: 'FROZEN', maxSpendPerTransaction: 7_000 });
      const both = await patch(card.id, { state: 'ACTIVE', maxSpendPerTransaction: 300 });
      expect(both.json()).toMatchObject({ state: 'ACTIVE', maxSpendPerTransaction: 300 });
    });

    it('cannot come with state CLOSED (400 naming it, nothing changes); on a CLOSED card alone it is 409 CARD_NOT_MUTABLE', async () => {
      const card = await activeCard(t, t.caller, undefined, { maxSpendPerTransaction: 900 });
      for (const value of [100, null]) {
        expectInvalid(await patch(card.id, { state: 'CLOSED', maxSpendPerTransaction: value }));
        expect((await t.caller.req('GET', `/cards/${card.id}`)).json()).toMatchObject({ state: 'ACTIVE', maxSpendPerTransaction: 900 });
      }
      expect((await patch(card.id, { state: 'CLOSED' })).json()).toMatchObject({ state: 'CLOSED', maxSpendPerTransaction: 900 });
      const late = await patch(card.id, { maxSpendPerTransaction: 100 });
      expect(late.statusCode, late.body).toBe(409);
      expect(late.json().code).toBe('CARD_NOT_MUTABLE');
      expect(await limitOf(card.id)).toBe(900);
    });
  });

  describe('GET /cards', () => {
    it('pages through the platform\'s cards, filtered by cardholder, newest first by default', async () => {
      const holder = await insertTestCustomer(t, t.caller);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await issueCard(injectCall(t.caller), holder)).id);
      const first = (await t.caller.req('GET', `/cards?cardholderId=${encodeURIComponent(holder)}&limit=2`)).json();
      expect(first).toMatchObject({ hasMore: true, totalCount: 3 });
      const second = (await t.caller.req('GET', `/cards?cardholderId=${encodeURIComponent(holder)}&limit=2&cursor=${first.nextCursor}`)).json();
      expect(second.hasMore).toBe(false);
      expect(second.nextCursor).toBeUndefined();
      expect([...first.data, ...second.data].map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
      const forged = await t.caller.req('GET', `/cards?limit=2&cursor=${first.nextCursor}`);
      expect(forged.statusCode).toBe(400);
      expect(forged.json().details.errors[0].field).toBe('cursor');
      expect((await other.req('GET', '/cards')).json().data.every((c: { cardholderId: string }) => c.cardholderId !== holder)).toBe(true);
    });
  });

  describe('GET /transactions', () => {
    it('answers 400 on cardId for an unknown or foreign card, and 404 for an unknown transaction', async () => {
      const res = await t.caller.req('GET', '/transactions?cardId=Card:nope');
      expect(res.statusCode).toBe(400);
      expect(res.json().details.errors[0].field).toBe('cardId');
      const missing = await t.caller.req('GET', '/transactions/CardTransaction:nope');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ status: 404, code: 'TRANSACTION_NOT_FOUND' });
    });
  });
});
