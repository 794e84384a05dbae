import { expect, it } from 'vitest';
import { CURRENT_END_USER_TERMS } from '../../src/domain/customers/end-user-terms.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { BASE, describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('GET /customers/end-user-terms', (t) => {
  it('answers the current version and its hosted URL, not a customer lookup of "end-user-terms"', async () => {
    const res = await t.caller.req('GET', '/customers/end-user-terms');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ version: 'V1', url: CURRENT_END_USER_TERMS.url });
    expect(new URL(res.json().url).protocol).toBe('https:');
  });

  it('answers the same in production, and 401 without credentials', async () => {
    const production = await t.newCaller('production', t.caller);
    expect((await production.req('GET', '/customers/end-user-terms')).json()).toEqual(CURRENT_END_USER_TERMS);
    const anonymous = await t.app.inject({ method: 'GET', url: `${BASE}/customers/end-user-terms` });
    expect(anonymous.statusCode).toBe(401);
    expect(expectErrorObject(anonymous, 'no credentials').code).toBe('UNAUTHORIZED');
  });
});
