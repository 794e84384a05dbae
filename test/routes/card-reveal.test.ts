import { Writable } from 'node:stream';
import luhn from 'fast-luhn';
import { beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { CardReveals } from '../../src/domain/cards/card-reveals.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { activeCard } from '../helpers/fixtures.js';
import { BASE, basicAuth, describeEachEngine, type Caller } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

const TTL_MS = 2_500;

describeEachEngine(
  'POST /cards/{id}/reveal and its single-use page',
  (t) => {
    const ctx = connectedCaller(t);
    let card: any;

    beforeAll(async () => {
      card = await activeCard(t, ctx.caller, undefined, { platformCardId: 'emp-reveal-042' });
    });

    const reveal = async (c: Caller = ctx.caller, cardId: string = card.id) => {
      const res = await c.req('POST', `/cards/${encodeURIComponent(cardId)}/reveal`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { panEmbedUrl: string; expiresAt: string };
    };
    /** Opens the page as a browser would: no credentials, the URL is the credential. */
    const open = (panEmbedUrl: string) => t.app.inject({ method: 'GET', url: new URL(panEmbedUrl).pathname });
    const details = (html: string) => ({
      pan: /id="pan">([\d ]+)</.exec(html)![1]!.replaceAll(' ', ''),
      cvv: /id="cvv">(\d+)</.exec(html)![1]!,
      expiry: /id="expiry">([\d/]+)</.exec(html)![1]!,
    });

    it('answers a signed URL that expires after CARD_REVEAL_TTL_MS, to a page with a Luhn-valid PAN ending in last4, a CVV and the expiry', async () => {
      const before = Date.now();
      const grant = await reveal();
      expect(Object.keys(grant).sort()).toEqual(['expiresAt', 'panEmbedUrl']);
      expect(Date.parse(grant.expiresAt)).toBeGreaterThanOrEqual(before + TTL_MS);
      expect(Date.parse(grant.expiresAt)).toBeLessThanOrEqual(Date.now() + TTL_MS);
      const url = new URL(grant.panEmbedUrl);
      expect(url.pathname).toMatch(/^\/sandbox-pages\/cards\/reveal\/[^/]+$/);
      const page = await open(grant.panEmbedUrl);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      const shown = details(page.body);
      expect(shown.pan).toMatch(/^4\d{15}$/);
      expect(luhn(shown.pan)).toBe(true);
      expect(shown.pan.endsWith(card.last4)).toBe(true);
      expect(shown.cvv).toMatch(/^\d{3}$/);
      expect(shown.expiry).toBe(`${String(card.expMonth).padStart(2, '0')}/${String(card.expYear).slice(-2)}`);
      // The same card shows the same details on every reveal; another card another PAN.
      const again = details((await open((await reveal()).panEmbedUrl)).body);
      expect(again).toEqual(shown);
      const other = await activeCard(t, ctx.caller, undefined, { platformCardId: 'emp-reveal-other-042' });
      const otherPan = details((await open((await reveal(ctx.caller, other.id)).panEmbedUrl)).body).pan;
      expect(otherPan.endsWith('4042')).toBe(true);
      expect(otherPan).not.toBe(shown.pan);
      expect(luhn(otherPan)).toBe(true);
    });

    it('works once: a HEAD does not use it up; a second use, two uses at once, a forged or truncated token all get one 200 at most, else 404 REFERENCE_NOT_FOUND', async () => {
      const grant = await reveal();
      const head = await t.app.inject({ method: 'HEAD', url: new URL(grant.panEmbedUrl).pathname });
      expect(head.statusCode).toBeGreaterThanOrEqual(400);
      expect((await open(grant.panEmbedUrl)).statusCode).toBe(200);
      const second = await open(grant.panEmbedUrl);
      expect(expectErrorObject(second, 'second use')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      const racing = await reveal();
      const answers = await Promise.all([open(racing.panEmbedUrl), open(racing.panEmbedUrl), open(racing.panEmbedUrl)]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 404, 404]);
      const fresh = await reveal();
      const path = new URL(fresh.panEmbedUrl).pathname;
      const token = decodeURIComponent(path.split('/').pop()!);
      const [id, signature] = token.split('.');
      const forged = `${id}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
      for (const bad of [forged, id!, `${id}.`, 'nonsense', `${token}.x`]) {
        const res = await t.app.inject({ method: 'GET', url: `/sandbox-pages/cards/reveal/${encodeURIComponent(bad)}` });
        expect(expectErrorObject(res, bad)).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      }
      // The forgeries did not use it up.
      expect((await open(fresh.panEmbedUrl)).statusCode).toBe(200);
    });

    it('stops at expiresAt without having been used', async () => {
      const grant = await reveal();
      await until('the reveal URL expired', async () => (Date.now() > Date.parse(grant.expiresAt) ? true : undefined));
      const res = await open(grant.panEmbedUrl);
      expect(expectErrorObject(res, 'expired')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      const unused = await t.services.store.db.selectFrom('card_reveals').select(['used_at', 'requested_by']).where('expires_at', '=', Date.parse(grant.expiresAt)).where('card_id', '=', card.id).execute();
      expect(unused).toEqual([{ used_at: null, requested_by: ctx.caller.tokenId }]);
    });

    it('expires on the platform clock: an advance past the time-to-live stops the URL at once, another platform\'s URL still works', async () => {
      const moved = await t.newCaller();
      const movedCard = await activeCard(t, moved, undefined, { platformCardId: 'emp-reveal-clock-042' });
      // A minute's time-to-live: real time cannot expire these during the test, only the clock.
      const reveals = new CardReveals(t.services.store, t.services.clock, Buffer.alloc(32, 9), 60_000);
      const grant = await reveals.reveal(moved.platformId, 'sandbox', moved.tokenId, movedCard.id);
      const untouched = await reveals.reveal(ctx.caller.platformId, 'sandbox', ctx.caller.tokenId, card.id);
      const advanced = await moved.req('POST', '/sandbox/clock/advance', { seconds: 61 });
      expect(advanced.statusCode, advanced.body).toBe(200);
      expect(await reveals.open(grant.token)).toBeUndefined();
      expect(await reveals.open(untouched.token)).toMatchObject({ cardId: card.id });
      const fresh = await reveal(moved, movedCard.id);
      expect(Date.parse(fresh.expiresAt)).toBeGreaterThanOrEqual(Date.parse(advanced.json<{ now: string }>().now) + TTL_MS);
      expect((await open(fresh.panEmbedUrl)).statusCode).toBe(200);
    });

    it('never puts the PAN or the token in a log line, an API answer or a webhook', async () => {
      const lines: string[] = [];
      const logged = await buildApp(t.services, { logger: { level: 'info', stream: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) } });
      try {
        const asCaller = (method: 'GET' | 'POST', url: string) => logged.inject({ method, url: `${BASE}${url}`, headers: { authorization: ctx.caller.auth } });
        const grant = (await asCaller('POST', `/cards/${card.id}/reveal`)).json();
        const token = decodeURIComponent(new URL(grant.panEmbedUrl).pathname.split('/').pop()!);
        const page = await logged.inject({ method: 'GET', url: new URL(grant.panEmbedUrl).pathname });
        expect(page.statusCode).toBe(200);
        const { pan, cvv } = details(page.body);
        const answers = [await asCaller('GET', `/cards/${card.id}`), await asCaller('GET', `/cards?cardholderId=${encodeURIComponent(card.cardholderId)}`), await asCaller('GET', '/webhook-events?limit=100')];
        expect(lines.length).toBeGreaterThan(0);
        expect(lines.join('')).toContain('/sandbox-pages/cards/reveal/<token>');
        for (const text of [lines.join(''), ...answers.map((a) => a.body)]) {
          expect(text).not.toContain(pan);
          expect(text).not.toContain(token);
        }
        const events = await t.services.store.db.selectFrom('webhook_events').select('body').where('platform_id', '=', ctx.caller.platformId).execute();
        expect(events.length).toBeGreaterThan(0);
        for (const e of events) expect(e.body).not.toContain(pan);
        for (const d of ctx.receiver.deliveries) expect(JSON.stringify(d.payload)).not.toContain(pan);
        expect(cvv).toMatch(/^\d{3}$/);
      } finally {
        await logged.close();
      }
    });

    it('under an Idempotency-Key a retry replays the first answer and records no second reveal', async () => {
      const count = async () => (await t.services.store.db.selectFrom('card_reveals').select('id').where('card_id', '=', card.id).execute()).length;
      const before = await count();
      const headers = { 'idempotency-key': `reveal-${Date.now()}` };
      const first = await ctx.caller.req('POST', `/cards/${card.id}/reveal`, undefined, headers);
      const retry = await ctx.caller.req('POST', `/cards/${card.id}/reveal`, undefined, headers);
      expect(first.statusCode, first.body).toBe(200);
      expect(retry.statusCode).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toEqual(first.json());
      expect(await count()).toBe(before + 1);
    });

    it('needs TRANSACT, finds only the platform\'s own cards, and answers 501 to a production token', async () => {
      const viewer = (await ctx.caller.req('POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] })).json();
      const asViewer = await t.app.inject({ method: 'POST', url: `${BASE}/cards/${card.id}/reveal`, headers: { authorization: basicAuth(viewer.clientId, viewer.clientSecret) } });
      expect(expectErrorObject(asViewer, 'viewer')).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      const stranger = await t.newCaller();
      const foreign = await stranger.req('POST', `/cards/${card.id}/reveal`);
      const unknown = await stranger.req('POST', '/cards/Card:019542f5-b3e7-7d02-8000-00000000dead/reveal');
      expect(expectErrorObject(foreign, 'foreign')).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });
      expect(foreign.json().message.replace(card.id, 'X')).toBe(unknown.json().message.replace('Card:019542f5-b3e7-7d02-8000-00000000dead', 'X'));
      const production = await t.newCaller('production', ctx.caller);
      expect(expectErrorObject(await production.req('POST', `/cards/${card.id}/reveal`), 'production')).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED' });
    });
  },
  { CARD_REVEAL_TTL_MS: String(TTL_MS) },
);
