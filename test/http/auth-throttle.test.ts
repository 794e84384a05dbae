import { expect, it } from 'vitest';
import { AuthFailureThrottle } from '../../src/http/auth-throttle.js';
import { appOnTestClock, BASE, basicAuth, describeEachEngine } from '../helpers/test-app.js';

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

const TOO_MANY = { status: 429, code: 'RATE_LIMITED', message: expect.stringMatching(/^Too many failed authentications; retry after \d+ s$/) };

describeEachEngine(
  'failed-authentication throttle',
  (t) => {
    const app = appOnTestClock(t);
    const get = (auth: string | undefined, remoteAddress = '198.51.100.1') =>
      app.inject({ method: 'GET', url: `${BASE}/tokens`, remoteAddress, headers: auth === undefined ? {} : { authorization: auth } });

    it('per client id: past the burst every attempt is 429 with Retry-After, the right secret too, until the window ends; other clients are not held', async () => {
      const victim = await t.newCaller();
      const other = await t.newCaller();
      const wrong = basicAuth(victim.clientId, 'wrong-secret');
      for (let i = 0; i < 5; i++) expect((await get(wrong)).statusCode).toBe(401);
      const limited = await get(wrong);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({ ...TOO_MANY, message: 'Too many failed authentications; retry after 2 s' });
      expect(limited.headers['retry-after']).toBe('2');
      // The right secret, from another address, spelled as the token id: still held.
      app.advance(1_000);
      const right = await get(basicAuth(victim.tokenId, victim.clientSecret), '198.51.100.2');
      expect(right.statusCode).toBe(429);
      expect(right.headers['retry-after']).toBe('1');
      expect((await get(other.auth)).statusCode).toBe(200);
      app.advance(999);
      expect((await get(victim.auth)).statusCode).toBe(429);
      app.advance(1);
      expect((await get(victim.auth)).statusCode).toBe(200);
    });

    it('per address: past its burst the failures from it are 429 with Retry-After, whatever they send, while valid tokens from it are served', async () => {
      const address = '203.0.113.9';
      const guess = (i: number) => basicAuth(`${i}`.padStart(32, 'f'), 'x');
      // A flood of wrong credentials from one address: unknown client ids and no credentials at all.
      for (let i = 0; i < 20; i++) expect((await get(i % 2 ? undefined : guess(i), address)).statusCode).toBe(401);
      const other = await t.newCaller();
      for (const caller of [t.caller, other]) {
        const served = await get(caller.auth, address);
        expect(served.statusCode).toBe(200);
      }
      const failures = [guess(100), basicAuth(other.clientId, 'wrong-secret'), undefined, 'Basic !!!', 'Bearer some-agent-token'];
      for (const auth of failures) {
        const refused = await get(auth, address);
        expect(refused.statusCode, String(auth)).toBe(429);
        expect(refused.json()).toEqual({ ...TOO_MANY, message: 'Too many failed authentications; retry after 2 s' });
        expect(refused.headers['retry-after']).toBe('2');
      }
      // A client whose own secret was wrong once from the held address is not held itself.
      expect((await get(other.auth, address)).statusCode).toBe(200);
      expect((await get(guess(101), '203.0.113.10')).statusCode).toBe(401);
      app.advance(2_000);
      expect((await get(guess(102), address)).statusCode).toBe(401);
    });
  },
  { AUTH_FAILURES_PER_CLIENT: '5', AUTH_FAILURES_PER_ADDRESS: '20', AUTH_FAILURE_WINDOW_MS: '2000' },
);
