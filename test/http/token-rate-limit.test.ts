import type { InjectOptions } from 'fastify';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { TokenRateLimit } from '../../src/http/token-rate-limit.js';
import { appOnTestClock, BASE, describeEachEngine, type Caller } from '../helpers/test-app.js';

it('a fixed window per token: the request past the limit is limited until the window ends; a full table drops the oldest', () => {
  let now = 0;
  const rl = new TokenRateLimit(2, 10_000, 2, () => now);
  expect(rl.take('a')).toEqual({ limit: 2, remaining: 1, resetSeconds: 10, limited: false });
  now = 3_500;
  expect(rl.take('a')).toEqual({ limit: 2, remaining: 0, resetSeconds: 7, limited: false });
  expect(rl.take('a')).toEqual({ limit: 2, remaining: 0, resetSeconds: 7, limited: true });
  expect(rl.take('b').limited).toBe(false);
  expect(rl.take('c').limited).toBe(false); // full: a, the oldest, goes
  expect(rl.take('a')).toEqual({ limit: 2, remaining: 1, resetSeconds: 10, limited: false });
  now = 13_499;
  expect(rl.take('a').remaining).toBe(0);
  now = 13_501;
  expect(rl.take('b')).toEqual({ limit: 2, remaining: 1, resetSeconds: 10, limited: false });
});

it('the settings are validated at boot and off by default', () => {
  expect(loadConfig({}).rateLimitPerToken).toBe(0);
  expect(loadConfig({ RATE_LIMIT_PER_TOKEN: '50', RATE_LIMIT_WINDOW_MS: '2000' })).toMatchObject({ rateLimitPerToken: 50, rateLimitWindowMs: 2000 });
  expect(() => loadConfig({ RATE_LIMIT_PER_TOKEN: '-1' })).toThrow(/RATE_LIMIT_PER_TOKEN/);
  expect(() => loadConfig({ RATE_LIMIT_PER_TOKEN: 'lots' })).toThrow(/RATE_LIMIT_PER_TOKEN/);
  expect(() => loadConfig({ RATE_LIMIT_WINDOW_MS: '10' })).toThrow(/RATE_LIMIT_WINDOW_MS/);
});

describeEachEngine(
  'per-token rate limit on',
  (t) => {
    const app = appOnTestClock(t);
    const send = (caller: Caller, method: InjectOptions['method'], url: string, payload?: object) =>
      app.inject({ method, url: `${BASE}${url}`, headers: { authorization: caller.auth }, ...(payload === undefined ? {} : { payload }) });

    it('each answer carries RateLimit-Limit/-Remaining/-Reset; past the limit the token gets 429 with Retry-After, other tokens do not; the window ends', async () => {
      const a = await t.newCaller();
      const b = await t.newCaller();
      for (let i = 1; i <= 5; i++) {
        // A 404 counts and carries the headers too.
        const res = i === 3 ? await send(a, 'GET', '/customers/Customer:nope') : await send(a, 'GET', '/tokens');
        expect(res.statusCode).toBe(i === 3 ? 404 : 200);
        expect(res.headers['ratelimit-limit']).toBe('5');
        expect(res.headers['ratelimit-remaining']).toBe(String(5 - i));
        expect(res.headers['ratelimit-reset']).toBe('2');
      }
      app.advance(500);
      const limited = await send(a, 'GET', '/tokens');
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({ status: 429, code: 'RATE_LIMITED', message: 'Too many requests for this token; retry after 2 s' });
      expect(limited.headers['retry-after']).toBe('2');
      expect(limited.headers['ratelimit-reset']).toBe('2');
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect((await send(a, 'POST', '/customers', { customerType: 'INDIVIDUAL' })).statusCode).toBe(429);
      const other = await send(b, 'GET', '/tokens');
      expect(other.statusCode).toBe(200);
      expect(other.headers['ratelimit-remaining']).toBe('4');
      app.advance(1_499);
      expect((await send(a, 'GET', '/tokens')).headers['retry-after']).toBe('1');
      app.advance(1);
      const again = await send(a, 'GET', '/tokens');
      expect(again.statusCode).toBe(200);
      expect(again.headers['ratelimit-remaining']).toBe('4');
      expect(again.headers['ratelimit-reset']).toBe('2');
    });

    it('requests without valid credentials and public documents are not counted nor given the headers', async () => {
      const res = await app.inject({ method: 'GET', url: `${BASE}/tokens` });
      expect(res.statusCode).toBe(401);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
      const doc = await app.inject({ method: 'GET', url: `${BASE}/openapi.json` });
      expect(doc.statusCode).toBe(200);
      expect(doc.headers['ratelimit-limit']).toBeUndefined();
    });
  },
  { RATE_LIMIT_PER_TOKEN: '5', RATE_LIMIT_WINDOW_MS: '2000' },
);

describeEachEngine('per-token rate limit off (the default)', (t) => {
  it('a token sends well past any small limit without a 429 and without RateLimit headers', async () => {
    for (let i = 0; i < 60; i++) {
      const res = await t.caller.req('GET', '/tokens');
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });
});
