import { expect, it } from 'vitest';
import { AuthFailureThrottle } from '../../src/http/auth-throttle.js';
import { BASE, basicAuth, describeEachEngine } from '../helpers/test-app.js';

it('a full table makes room by dropping expired entries, else the oldest', () => {
  let now = 0;
  const th = new AuthFailureThrottle(() => 1, 1000, 2, () => now);
  th.fail(['a']);
  th.fail(['b']);
  expect(th.check(['a'])).toEqual({ retryAfterSeconds: 1 });
  th.fail(['c']); // full: a, the oldest, goes
  expect(th.check(['a'])).toBeUndefined();
  expect(th.check(['b'])).toBeDefined();
  now = 1000;
  expect(th.check(['b', 'c'])).toBeUndefined();
});

describeEachEngine(
  'failed-authentication throttle',
  (t) => {
    const get = (auth: string | undefined, remoteAddress = '198.51.100.1') =>
      t.app.inject({ method: 'GET', url: `${BASE}/tokens`, remoteAddress, headers: auth === undefined ? {} : { authorization: auth } });

    it('per client id: past the burst every attempt is 429 with Retry-After, the right secret too, until the window ends; other clients are not held', { timeout: 20_000 }, async () => {
      const victim = await t.newCaller();
      const other = await t.newCaller();
      const wrong = basicAuth(victim.clientId, 'wrong-secret');
      for (let i = 0; i < 5; i++) expect((await get(wrong)).statusCode).toBe(401);
      const limited = await get(wrong);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({ status: 429, code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many failed authentications; retry after [12] s$/) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(2);
      // The right secret, from another address, spelled as the token id: still held.
      const right = await get(basicAuth(victim.tokenId, victim.clientSecret), '198.51.100.2');
      expect(right.statusCode).toBe(429);
      expect((await get(other.auth)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 2_100));
      expect((await get(victim.auth)).statusCode).toBe(200);
    });

    it('per address: past its burst every credential from it is 429, other addresses are not held', async () => {
      const address = '203.0.113.9';
      for (let i = 0; i < 20; i++) {
        const res = await get(i % 2 ? undefined : basicAuth(`${i}`.padStart(32, 'f'), 'x'), address);
        expect(res.statusCode).toBe(401);
      }
      const res = await get(t.caller.auth, address);
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
      expect((await get(t.caller.auth, '203.0.113.10')).statusCode).toBe(200);
    });
  },
  { AUTH_FAILURES_PER_CLIENT: '5', AUTH_FAILURES_PER_ADDRESS: '20', AUTH_FAILURE_WINDOW_MS: '2000' },
);
