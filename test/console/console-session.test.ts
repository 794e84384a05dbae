import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/domain/platform/tokens.js';
import { SESSION_COOKIE, SESSION_TTL_MS } from '../../src/console/session.js';
import { activeCard } from '../helpers/fixtures.js';
import { appOnTestClock, describeEachEngine } from '../helpers/test-app.js';
import { ConsoleClient, textOf } from './console-client.js';

describeEachEngine('console sign-in and sessions', (t) => {
  it('signs in with a token client id and secret and sets a strict, HttpOnly, expiring session cookie scoped to /console', async () => {
    const browser = new ConsoleClient(t.app);
    const page = await browser.get('/console/sign-in');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<label for="client-id">Client ID</label>');
    const res = await browser.signIn(t.caller.clientId, t.caller.clientSecret);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/customers');
    const cookie = (res.cookies as { name: string; httpOnly?: boolean; sameSite?: string; path?: string; expires?: Date; secure?: boolean }[]).find((c) => c.name === SESSION_COOKIE)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    // Plain http here: Secure would make the browser drop it.
    expect(cookie.secure).toBeUndefined();
    expect(cookie.expires!.getTime()).toBeGreaterThan(Date.now() + SESSION_TTL_MS - 60_000);
    const customers = await browser.get('/console/customers');
    expect(customers.statusCode).toBe(200);
    expect(textOf(customers.body)).toContain(`${t.caller.tokenId} (MANAGE)`);
  });

  it('refuses a wrong secret with a message, and a page without a session sends the browser to sign-in', async () => {
    const browser = new ConsoleClient(t.app);
    const res = await browser.signIn(t.caller.clientId, 'not-the-secret');
    expect(res.statusCode).toBe(401);
    expect(textOf(res.body)).toContain('That client ID and secret do not match a live token.');
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    const page = await browser.get('/console/cards');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/console/sign-in');
  });

  it('a sign-in with a tampered session cookie gets no page', async () => {
    const browser = new ConsoleClient(t.app);
    await browser.signIn(t.caller.clientId, t.caller.clientSecret);
    const value = browser.cookies.get(SESSION_COOKIE)!;
    const claims = JSON.parse(Buffer.from(value.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, permission: 'MANAGE', platformId: 'Platform:someone-else' })).toString('base64url');
    browser.cookies.set(SESSION_COOKIE, `${forged}.${value.split('.')[1]}`);
    const page = await browser.get('/console/customers');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/console/sign-in?ended=expired');
  });

  it('refuses a production token: the console is for the sandbox', async () => {
    const production = await t.newCaller('production', t.caller);
    const res = await new ConsoleClient(t.app).signIn(production.clientId, production.clientSecret);
    expect(res.statusCode).toBe(403);
    expect(textOf(res.body)).toContain('The console is for sandbox tokens');
  });

  it('ends the session at once when its token is revoked', async () => {
    const other = await t.services.tokens.create(t.caller.platformId, { name: 'console revoke', permissions: [...PERMISSIONS], environment: 'sandbox' });
    const browser = new ConsoleClient(t.app);
    await browser.signIn(other.clientId, other.clientSecret);
    expect((await browser.get('/console/customers')).statusCode).toBe(200);
    await t.services.tokens.revoke(t.caller.platformId, other.id);
    const page = await browser.get('/console/customers');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/console/sign-in?ended=expired');
  });

  it('refuses a form sent without its CSRF token, and does nothing', async () => {
    const card = await activeCard(t);
    const browser = new ConsoleClient(t.app);
    await browser.signIn(t.caller.clientId, t.caller.clientSecret);
    await browser.get(`/console/cards/${card.id}`);
    const res = await browser.post(`/console/cards/${card.id}/state`, { state: 'FROZEN' }, { csrf: false });
    expect(res.statusCode).toBe(403);
    expect(textOf(res.body)).toContain('without a valid CSRF token');
    const forged = await browser.post(`/console/cards/${card.id}/state`, { state: 'FROZEN', _csrf: 'forged-token' }, { csrf: false });
    expect(forged.statusCode).toBe(403);
    expect((await t.services.cards.get(t.caller.platformId, card.id)).state).toBe('ACTIVE');
    // With it, the same form acts, through the same domain service as PATCH /cards/{id}: the event log has it.
    const done = await browser.post(`/console/cards/${card.id}/state`, { state: 'FROZEN' });
    expect(done.statusCode).toBe(303);
    expect((await t.services.cards.get(t.caller.platformId, card.id)).state).toBe('FROZEN');
    const events = await t.services.webhookEvents.list(t.caller.platformId, 50, undefined, { type: 'CARD.STATE_CHANGE' });
    expect(events.data.some((e) => JSON.stringify(e.payload).includes(card.id) && JSON.stringify(e.payload).includes('FROZEN'))).toBe(true);
  });

  it('a VIEW token sees every page but its forms are refused with a clear message', async () => {
    const card = await activeCard(t);
    const viewer = await t.services.tokens.create(t.caller.platformId, { name: 'console viewer', permissions: ['VIEW'], environment: 'sandbox' });
    const browser = new ConsoleClient(t.app);
    await browser.signIn(viewer.clientId, viewer.clientSecret);
    const page = await browser.get(`/console/cards/${card.id}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('these forms are refused');
    const res = await browser.post(`/console/cards/${card.id}/simulate/authorization`, { amount: '500', merchantDescriptor: 'BLUE BOTTLE COFFEE SF' });
    expect(res.statusCode).toBe(403);
    expect(textOf(res.body)).toContain('You are signed in with a VIEW token: the console shows everything, but this action needs a token with the TRANSACT permission.');
    const freeze = await browser.post(`/console/cards/${card.id}/state`, { state: 'FROZEN' });
    expect(freeze.statusCode).toBe(403);
    expect((await t.services.cards.get(t.caller.platformId, card.id)).state).toBe('ACTIVE');
    const txns = await t.services.transactions.list(t.caller.platformId, 10, undefined, { cardId: card.id, sortOrder: 'desc' });
    expect(txns.totalCount).toBe(0);
  });

  it('reports every invalid field of a simulator form at once', async () => {
    const card = await activeCard(t);
    const browser = new ConsoleClient(t.app);
    await browser.signIn(t.caller.clientId, t.caller.clientSecret);
    await browser.get(`/console/cards/${card.id}`);
    const res = await browser.post(`/console/cards/${card.id}/simulate/authorization`, { amount: '12.50', merchantDescriptor: '' });
    expect(res.statusCode).toBe(400);
    const text = textOf(res.body);
    expect(text).toContain('amount must be a whole number of minor units');
    expect(text).toContain('merchantDescriptor is required');
  });

  it("a live region's poll after the session ended gets a short notice, not a redirect", async () => {
    const browser = new ConsoleClient(t.app);
    await browser.signIn(t.caller.clientId, t.caller.clientSecret);
    await browser.get('/console/customers');
    await browser.post('/console/sign-out', {});
    const poll = await browser.get('/console/transactions', { 'hx-request': 'true' });
    expect(poll.statusCode).toBe(401);
    expect(poll.body.trimStart().startsWith('<div class="error" role="alert">Your session has ended: sign in again.')).toBe(true);
  });

  it('signs out: the cookie is cleared and pages send the browser to sign-in', async () => {
    const browser = new ConsoleClient(t.app);
    await browser.signIn(t.caller.clientId, t.caller.clientSecret);
    await browser.get('/console/customers');
    const res = await browser.post('/console/sign-out', {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in?ended=out');
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false);
    expect((await browser.get('/console/customers')).headers.location).toBe('/console/sign-in');
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/2025-10-13/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.includes('console'))).toEqual([]);
  });

  describe('on a clock the test moves', () => {
    const clocked = appOnTestClock(t);

    it('ends a session after its lifetime: the next page asks to sign in again', async () => {
      const browser = new ConsoleClient(clocked);
      await browser.signIn(t.caller.clientId, t.caller.clientSecret);
      expect((await browser.get('/console/customers')).statusCode).toBe(200);
      clocked.advance(SESSION_TTL_MS - 1_000);
      expect((await browser.get('/console/customers')).statusCode).toBe(200);
      clocked.advance(1_000);
      const page = await browser.get('/console/customers');
      expect(page.statusCode).toBe(303);
      expect(page.headers.location).toBe('/console/sign-in?ended=expired');
      expect(textOf((await browser.get('/console/sign-in?ended=expired')).body)).toContain('Your session has ended: sign in again.');
    });

    it('throttles failed sign-ins as Basic auth does: past the burst, even the right secret is refused', async () => {
      const victim = await t.services.tokens.create(t.caller.platformId, { name: 'console throttle', permissions: ['VIEW'], environment: 'sandbox' });
      const browser = new ConsoleClient(clocked);
      for (let i = 0; i < t.services.config.authFailuresPerClient; i++) expect((await browser.signIn(victim.clientId, 'wrong')).statusCode).toBe(401);
      const held = await browser.signIn(victim.clientId, victim.clientSecret);
      expect(held.statusCode).toBe(429);
      expect(held.headers['retry-after']).toBeDefined();
      // The API shares the throttle: the same token over Basic auth is held too.
      const api = await clocked.inject({ method: 'GET', url: '/2025-10-13/tokens', headers: { authorization: `Basic ${Buffer.from(`${victim.clientId}:${victim.clientSecret}`).toString('base64')}` } });
      expect(api.statusCode).toBe(429);
      clocked.advance(t.services.config.authFailureWindowMs);
      expect((await browser.signIn(victim.clientId, victim.clientSecret)).statusCode).toBe(303);
    });
  });
});

describeEachEngine(
  'console on a production server',
  (t) => {
    it('answers /console exactly as any unknown path', async () => {
      for (const url of ['/console', '/console/sign-in', '/console/assets/htmx.min.js']) {
        const res = await t.app.inject({ method: 'GET', url, headers: { authorization: t.caller.auth } });
        const unknown = await t.app.inject({ method: 'GET', url: url.replace('console', 'no-such-thing'), headers: { authorization: t.caller.auth } });
        expect(res.statusCode, url).toBe(404);
        expect(res.json(), url).toMatchObject({ status: 404, code: unknown.json().code });
      }
    });
  },
  { SERVICE_ENV: 'production' },
);
