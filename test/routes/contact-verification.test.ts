import { expect, it } from 'vitest';
import { ContactVerificationService, MAX_WRONG_CONTACT_CODES, SANDBOX_CONTACT_CODE } from '../../src/domain/customers/contact-verification.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

const EU_INDIVIDUAL = { customerType: 'INDIVIDUAL', region: 'DE', email: 'erika@example.de', phoneNumber: '+4915112345678', fullName: 'Erika Mustermann' };

describeEachEngine('contact verification: verify-email, verify-phone and their confirm', (t) => {
  const create = async (c: Caller, body: unknown) => {
    const res = await c.req('POST', '/customers', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const confirm = (c: Caller, id: string, channel: 'email' | 'phone', code: string, headers?: Record<string, string>) =>
    c.req('POST', `/customers/${id}/verify-${channel}/confirm`, { code }, headers);

  it('gives a customer of a European Economic Area region both channels PENDING, and one elsewhere none (its sends are 409)', async () => {
    const eu = await create(t.caller, EU_INDIVIDUAL);
    expect(eu.contactVerification).toEqual({ email: 'PENDING', phone: 'PENDING' });
    const us = await create(t.caller, { ...EU_INDIVIDUAL, region: 'US' });
    expect(us).not.toHaveProperty('contactVerification');
    for (const channel of ['email', 'phone']) {
      const res = await t.caller.req('POST', `/customers/${us.id}/verify-${channel}`);
      expect(res.statusCode, res.body).toBe(409);
      expect(expectErrorObject(res, 'not required').code).toBe('INVALID_STATE_TRANSITION');
    }
  });

  it('verifies each channel with the sandbox code 123456 after a send, answering the customer; a second send is then 409', async () => {
    const customer = await create(t.caller, EU_INDIVIDUAL);
    for (const channel of ['email', 'phone'] as const) {
      const sent = await t.caller.req('POST', `/customers/${customer.id}/verify-${channel}`);
      expect(sent.statusCode, sent.body).toBe(204);
      expect(sent.body).toBe('');
      const res = await confirm(t.caller, customer.id, channel, SANDBOX_CONTACT_CODE);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().contactVerification[channel]).toBe('VERIFIED');
      expect(Date.parse(res.json().updatedAt)).toBeGreaterThanOrEqual(Date.parse(customer.updatedAt));
      const again = await t.caller.req('POST', `/customers/${customer.id}/verify-${channel}`);
      expect(again.statusCode).toBe(409);
      expect(expectErrorObject(again, 'verified already').code).toBe('INVALID_STATE_TRANSITION');
    }
    expect((await t.caller.req('GET', `/customers/${customer.id}`)).json().contactVerification).toEqual({ email: 'VERIFIED', phone: 'VERIFIED' });
  });

  it('refuses a confirm before any send, and puts a channel back to PENDING when its value changes', async () => {
    const customer = await create(t.caller, EU_INDIVIDUAL);
    const early = await confirm(t.caller, customer.id, 'email', SANDBOX_CONTACT_CODE);
    expect(early.statusCode).toBe(400);
    expect(expectErrorObject(early, 'not sent').details!.errors).toEqual([{ field: 'code', message: expect.stringMatching(/no code has been sent/) }]);
    await t.caller.req('POST', `/customers/${customer.id}/verify-email`);
    expect((await confirm(t.caller, customer.id, 'email', SANDBOX_CONTACT_CODE)).statusCode).toBe(200);
    const changed = await t.caller.req('PATCH', `/customers/${customer.id}`, { customerType: 'INDIVIDUAL', email: 'new@example.de' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().contactVerification).toEqual({ email: 'PENDING', phone: 'PENDING' });
    const readOnly = await t.caller.req('PATCH', `/customers/${customer.id}`, { customerType: 'INDIVIDUAL', contactVerification: { email: 'VERIFIED' } });
    expect(readOnly.statusCode).toBe(400);
  });

  it(`counts wrong codes, with or without Idempotency-Key: after ${MAX_WRONG_CONTACT_CODES} even the right code is refused until a new send`, async () => {
    const customer = await create(t.caller, EU_INDIVIDUAL);
    await t.caller.req('POST', `/customers/${customer.id}/verify-phone`);
    for (let i = 1; i <= MAX_WRONG_CONTACT_CODES; i++) {
      const res = await confirm(t.caller, customer.id, 'phone', '000000', i % 2 === 0 ? { 'idempotency-key': `guess-${customer.id}-${i}` } : undefined);
      expect(res.statusCode).toBe(400);
      if (i === 2) {
        // A replay of the same key answers the kept 400 and counts nothing more.
        const replay = await confirm(t.caller, customer.id, 'phone', '000000', { 'idempotency-key': `guess-${customer.id}-${i}` });
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body).toBe(res.body);
      }
      expect((expectErrorObject(res, `wrong ${i}`).details!.errors as { message: string }[])[0]!.message).toContain(`${MAX_WRONG_CONTACT_CODES - i} attempt(s) left`);
    }
    const locked = await confirm(t.caller, customer.id, 'phone', SANDBOX_CONTACT_CODE);
    expect(locked.statusCode).toBe(400);
    expect((expectErrorObject(locked, 'void').details!.errors as { message: string }[])[0]!.message).toMatch(/wrong codes voided this code/);
    await t.caller.req('POST', `/customers/${customer.id}/verify-phone`);
    const res = await confirm(t.caller, customer.id, 'phone', SANDBOX_CONTACT_CODE);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().contactVerification).toEqual({ email: 'PENDING', phone: 'VERIFIED' });
  });

  it('refuses an expired code (a code whose lifetime is zero expires as it is sent)', async () => {
    const customer = await create(t.caller, EU_INDIVIDUAL);
    const instant = new ContactVerificationService(t.services.store, t.services.clock, 0);
    await instant.send(t.caller.platformId, 'sandbox', customer.id, 'email');
    expect(await instant.confirm(t.caller.platformId, customer.id, 'email', SANDBOX_CONTACT_CODE)).toEqual({ refused: { reason: 'EXPIRED' } });
    const res = await confirm(t.caller, customer.id, 'email', SANDBOX_CONTACT_CODE);
    expect(res.statusCode).toBe(400);
    expect((expectErrorObject(res, 'expired').details!.errors as { message: string }[])[0]!.message).toMatch(/expired/);
  });

  it('answers 404 USER_NOT_FOUND for an unknown or foreign customer, 410 for a deleted one, 400 for a bad body, 501 for a send in production', async () => {
    const other = await t.newCaller();
    const foreign = await create(other, EU_INDIVIDUAL);
    for (const id of ['Customer:019542f5-b3e7-7d02-8000-00000000dead', foreign.id]) {
      for (const res of [await t.caller.req('POST', `/customers/${id}/verify-email`), await confirm(t.caller, id, 'email', SANDBOX_CONTACT_CODE)]) {
        expect(res.statusCode, res.body).toBe(404);
        expect(expectErrorObject(res, id).code).toBe('USER_NOT_FOUND');
      }
    }
    const deleted = await create(t.caller, EU_INDIVIDUAL);
    await t.caller.req('DELETE', `/customers/${deleted.id}`);
    expect((await t.caller.req('POST', `/customers/${deleted.id}/verify-phone`)).statusCode).toBe(410);
    const live = await create(t.caller, EU_INDIVIDUAL);
    for (const body of [{}, { code: '' }, { code: 123456 }, { code: '123456', extra: 1 }]) {
      const res = await t.caller.req('POST', `/customers/${live.id}/verify-email/confirm`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(expectErrorObject(res, 'bad body').code).toBe('INVALID_INPUT');
    }
    const production = await t.newCaller('production', t.caller);
    const prodCustomer = await create(production, EU_INDIVIDUAL);
    const res = await production.req('POST', `/customers/${prodCustomer.id}/verify-email`);
    expect(res.statusCode).toBe(501);
    expect(expectErrorObject(res, 'production').code).toBe('NOT_IMPLEMENTED');
  });
});
