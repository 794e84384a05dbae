import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { approvedCardholder, injectCall, insertTestCustomer, issueCard } from '../helpers/fixtures.js';

describeEachEngine('cards and transactions', (t) => {
  let customerId: string;
  let other: Caller;

  beforeAll(async () => {
    customerId = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    other = await t.newCaller();
  });

  describe('POST /cards', () => {
    it('issues a PROCESSING virtual card funded by the cardholder\'s USD account', async () => {
      const accountId = await approvedCardholder(injectCall(t.caller), customerId);
      const res = await t.caller.req('POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', platformCardId: 'emp-001', fundingSources: [accountId] });
      expect(res.statusCode).toBe(201);
      const card = res.json();
      expect(card).toMatchObject({ cardholderId: customerId, form: 'VIRTUAL', state: 'PROCESSING', stateReason: null, platformCardId: 'emp-001', currency: 'USD', fundingSources: [accountId] });
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
