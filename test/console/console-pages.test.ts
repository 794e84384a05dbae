import { expect, it } from 'vitest';
import { activeCard, insertTestCustomer } from '../helpers/fixtures.js';
import { RESEND_WEBHOOKS_JOB } from '../../src/domain/webhooks/webhook-resends.js';
import { webhookDeliveryHandler } from '../../src/jobs/deliver-webhook-job.js';
import { resendWebhooksHandler } from '../../src/jobs/resend-webhooks-job.js';
import { transferSettlementHandler } from '../../src/jobs/transfer-settlement.js';
import { usdAccount } from '../helpers/external-accounts.js';
import { usdAccountOf } from '../helpers/money.js';
import { drainCardJobs, drainJobs, queuedJobs } from '../helpers/card-jobs.js';
import { BASE, describeEachEngine } from '../helpers/test-app.js';
import { connectReceiver, produceEvent, startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { ConsoleClient, textOf } from './console-client.js';

const linksTo = (html: string, prefix: string) => [...html.matchAll(new RegExp(`href="(${prefix}[^"?]+)"`, 'g'))].map((m) => decodeURIComponent(m[1]!));

describeEachEngine('console pages', (t) => {
  const signedIn = async () => {
    const browser = new ConsoleClient(t.app);
    await browser.signIn(t.caller.clientId, t.caller.clientSecret);
    return browser;
  };

  it('pages a list 20 at a time, follows its cursor and keeps its filters', async () => {
    const platform = await t.newCaller();
    const individuals = new Set<string>();
    for (let i = 0; i < 23; i++) individuals.add(await insertTestCustomer(t, platform, 'INDIVIDUAL'));
    const business = await insertTestCustomer(t, platform, 'BUSINESS');
    const browser = new ConsoleClient(t.app);
    await browser.signIn(platform.clientId, platform.clientSecret);

    const first = await browser.get('/console/customers?customerType=INDIVIDUAL');
    const firstIds = linksTo(first.body, '/console/customers/');
    expect(firstIds).toHaveLength(20);
    expect(textOf(first.body)).toContain('23 in all');
    const next = /href="([^"]*cursor=[^"]*)">Next page/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    expect(next).toContain('customerType=INDIVIDUAL');
    const second = await browser.get(next);
    const secondIds = linksTo(second.body, '/console/customers/');
    expect(secondIds).toHaveLength(3);
    expect(new Set([...firstIds, ...secondIds].map((href) => href.split('/').pop()))).toEqual(individuals);
    expect(second.body).not.toContain('Next page');

    const businesses = await browser.get('/console/customers?customerType=BUSINESS');
    expect(linksTo(businesses.body, '/console/customers/').map((href) => href.split('/').pop())).toEqual([business]);
    // A value the select does not offer is no filter, not an error.
    expect(linksTo((await browser.get('/console/customers?customerType=ROBOT')).body, '/console/customers/')).toHaveLength(20);
  });

  it("shows a customer's KYC status, accounts with balances and cards, each card linked", async () => {
    const card = await activeCard(t);
    const browser = await signedIn();
    const res = await browser.get(`/console/customers/${card.cardholderId}`);
    expect(res.statusCode).toBe(200);
    const text = textOf(res.body);
    expect(text).toContain('KYB status APPROVED');
    expect(text).toMatch(/INTERNAL_FIAT ACTIVE 0\.00 USD 0\.00 USD/);
    expect(linksTo(res.body, '/console/cards/')).toContain(`/console/cards/${card.id}`);
    expect(text).toContain('Beneficial owners');
  });

  it('filters transactions by status, and a transaction page shows its operation timeline', async () => {
    const card = await activeCard(t);
    const browser = await signedIn();
    await browser.get(`/console/cards/${card.id}`);
    const declined = await browser.post(`/console/cards/${card.id}/simulate/authorization`, { amount: '400', merchantDescriptor: 'CORNER STORE 002' });
    expect(declined.statusCode).toBe(303);
    const declinedId = new URL(declined.headers.location as string, 'http://x').searchParams.get('transaction')!;
    await drainCardJobs(t.services, t.app.log);
    const list = await browser.get(`/console/transactions?status=DECLINED&cardId=${encodeURIComponent(card.id)}`);
    expect(linksTo(list.body, '/console/transactions/')).toEqual([`/console/transactions/${declinedId}`]);
    expect(linksTo((await browser.get(`/console/transactions?status=SETTLED&cardId=${encodeURIComponent(card.id)}`)).body, '/console/transactions/')).toEqual([]);
    const page = await browser.get(`/console/transactions/${declinedId}`);
    expect(textOf(page.body)).toContain('DECLINED INSUFFICIENT_FUNDS');
    expect(textOf(page.body)).toMatch(/AUTHORIZATION 400 · REJECTED/);
  });

  it('lists transfers in and out with card transactions, by type and status, and opens a transfer to its page; a VIEW token sees them too', async () => {
    const platform = await t.newCaller();
    const customerId = await insertTestCustomer(t, platform, 'INDIVIDUAL', 'APPROVED');
    const accountId = await usdAccountOf(platform, customerId);
    expect((await platform.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 10_000 })).statusCode).toBe(200);
    const external = async (suffix: string) => {
      const res = await platform.req('POST', '/customers/external-accounts', { customerId, ...usdAccount(`123456789${suffix}`) });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const [completes, rejects] = [await external('000'), await external('004')];
    const card = await activeCard(t, platform, customerId);
    const browser = new ConsoleClient(t.app);
    await browser.signIn(platform.clientId, platform.clientSecret);
    await browser.get(`/console/cards/${card.id}`);
    const auth = await browser.post(`/console/cards/${card.id}/simulate/authorization`, { amount: '400', merchantDescriptor: 'CORNER STORE 002' });
    const cardTxn = new URL(auth.headers.location as string, 'http://x').searchParams.get('transaction')!;
    await drainCardJobs(t.services, t.app.log);
    const made = async (path: string, body: unknown) => {
      const res = await platform.req('POST', path, body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const incoming = await made('/transfer-in', { source: { accountId: completes }, destination: { accountId }, amount: 2_500 });
    // Suffix 004: held, then rejected by the bank and refunded by the settlement job.
    const outgoing = await made('/transfer-out', { source: { accountId }, destination: { accountId: rejects }, amount: 1_000 });
    await drainJobs(t.services, t.app.log, transferSettlementHandler);
    const api = async (id: string) => (await platform.req('GET', `/transactions/${encodeURIComponent(id)}`)).json();
    const [inTxn, outTxn] = [await api(incoming), await api(outgoing)];
    expect([inTxn.status, outTxn.status, outTxn.failureReason]).toEqual(['COMPLETED', 'FAILED', 'ACCOUNT_CANNOT_RECEIVE']);

    const ids = (html: string) => linksTo(html, '/console/transactions/').map((href) => href.split('/').pop()).sort();
    const rowOf = (html: string, id: string) => textOf(html.split('<tr>').find((row) => row.includes(`/console/transactions/${encodeURIComponent(id)}"`)) ?? '');
    const list = await browser.get('/console/transactions');
    expect(ids(list.body)).toEqual([cardTxn, incoming, outgoing].sort());
    expect(rowOf(list.body, incoming)).toContain(`${incoming} INCOMING COMPLETED ${completes} → ${accountId} ${inTxn.reconciliationInstructions.reference} 25.00 USD`);
    expect(rowOf(list.body, outgoing)).toContain(`${outgoing} OUTGOING FAILED ${accountId} → ${rejects}`);
    expect(rowOf(list.body, outgoing)).toContain('10.00 USD');
    expect(rowOf(list.body, cardTxn)).toContain(`${cardTxn} CARD`);
    expect(rowOf(list.body, cardTxn)).toContain('CORNER STORE 002');
    expect(ids((await browser.get('/console/transactions?type=OUTGOING')).body)).toEqual([outgoing]);
    expect(ids((await browser.get('/console/transactions?type=CARD')).body)).toEqual([cardTxn]);
    expect(ids((await browser.get('/console/transactions?type=INCOMING&status=COMPLETED')).body)).toEqual([incoming]);
    expect(ids((await browser.get('/console/transactions?status=FAILED')).body)).toEqual([outgoing]);
    expect(ids((await browser.get(`/console/transactions?customerId=${encodeURIComponent(customerId)}&type=INCOMING`)).body)).toEqual([incoming]);
    // The live refresh answers the table alone, every kind in it.
    const fragment = await browser.get('/console/transactions', { 'hx-request': 'true' });
    expect(fragment.body.trimStart().startsWith('<div id="transactions"')).toBe(true);
    expect(ids(fragment.body)).toEqual([cardTxn, incoming, outgoing].sort());

    const shown = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
    const outPage = textOf((await browser.get(`/console/transactions/${outgoing}`)).body);
    expect(outPage).toContain('Type OUTGOING (DEBIT) Status FAILED ACCOUNT_CANNOT_RECEIVE');
    expect(outPage).toContain(`Source account ${accountId} (USD) Destination account ${rejects} (USD) Sent 10.00 USD Received 10.00 USD`);
    expect(outPage).toContain(`Failure reason ACCOUNT_CANNOT_RECEIVE Refund ${outTxn.refund.status} ${outTxn.refund.reason}, ${outTxn.refund.reference}`);
    expect(outPage).toContain(`Created ${shown(outTxn.createdAt)} Settled ${outTxn.settledAt ? shown(outTxn.settledAt) : 'not yet'}`);
    const inPage = await browser.get(`/console/transactions/${incoming}`);
    expect(textOf(inPage.body)).toContain(`Type INCOMING (CREDIT) Status COMPLETED Customer ${customerId}`);
    expect(textOf(inPage.body)).toContain(`Refund none Created ${shown(inTxn.createdAt)} Settled ${shown(inTxn.settledAt)}`);
    expect(linksTo(inPage.body, '/console/customers/')).toContain(`/console/customers/${customerId}`);
    // A card transaction keeps its own page.
    expect(textOf((await browser.get(`/console/transactions/${cardTxn}`)).body)).toContain('Merchant CORNER STORE 002');

    const viewer = await t.services.tokens.create(platform.platformId, { name: 'transactions viewer', permissions: ['VIEW'], environment: 'sandbox' });
    const limited = new ConsoleClient(t.app);
    await limited.signIn(viewer.clientId, viewer.clientSecret);
    expect(ids((await limited.get('/console/transactions')).body)).toEqual([cardTxn, incoming, outgoing].sort());
    const seen = await limited.get(`/console/transactions/${incoming}`);
    expect(seen.statusCode).toBe(200);
    expect(textOf(seen.body)).toContain('Status COMPLETED');
    // Another platform's transfer is not found, like its card transactions.
    expect((await (await signedIn()).get(`/console/transactions/${incoming}`)).statusCode).toBe(404);
  });

  it('runs every simulator form of the card page through the domain, and a live refresh answers the fragment alone', async () => {
    const card = await activeCard(t);
    await t.services.internalAccounts.fund(t.caller.platformId, card.fundingSources[0], 5_000);
    const browser = await signedIn();
    const page = await browser.get(`/console/cards/${card.id}`);
    for (const name of ['authorization', 'clearing', 'return', 'authorization_expiry', 'return_reversal']) {
      expect(page.body, name).toContain(`/simulate/${name}"`);
    }
    const auth = await browser.post(`/console/cards/${card.id}/simulate/authorization`, { amount: '1000', merchantDescriptor: 'BLUE BOTTLE COFFEE SF' });
    const txn = new URL(auth.headers.location as string, 'http://x').searchParams.get('transaction')!;
    for (const [name, form] of [['clearing', { amount: '1000' }], ['return', { amount: '1000' }], ['return_reversal', {}]] as const) {
      const res = await browser.post(`/console/cards/${card.id}/simulate/${name}`, { cardTransactionId: txn, ...form });
      expect(res.statusCode, `${name}: ${textOf(res.body)}`).toBe(303);
    }
    await drainCardJobs(t.services, t.app.log);
    const fragment = await browser.get(`/console/cards/${card.id}`, { 'hx-request': 'true' });
    expect(fragment.body.trimStart().startsWith('<div id="card-transactions"')).toBe(true);
    expect(textOf(fragment.body)).toMatch(/AUTHORIZATION 1000 · LANDED.*CLEARING 1000 · LANDED.*RETURN 1000 · LANDED.*RETURN_REVERSAL 1000 · LANDED/);
    // A simulator refused by the state machine is a page with the API's code and message.
    const expiry = await browser.post(`/console/cards/${card.id}/simulate/authorization_expiry`, { cardTransactionId: txn });
    expect(expiry.statusCode).toBe(409);
    expect(textOf(expiry.body)).toContain('409 INVALID_STATE_TRANSITION');
  });

  it("answers an unknown or another platform's card as not found", async () => {
    const other = await t.newCaller();
    const card = await activeCard(t, other);
    const browser = await signedIn();
    const res = await browser.get(`/console/cards/${card.id}`);
    expect(res.statusCode).toBe(404);
    const unknown = await browser.get('/console/cards/Card:00000000-0000-0000-0000-000000000000');
    expect(unknown.statusCode).toBe(404);
    // The same page but for the id, and the sandbox clock's time, which may tick a second between the two.
    const page = (body: string, id: string) => textOf(body).replace(id, 'ID').replace(/Sandbox clock: \S+/, 'Sandbox clock: T');
    expect(page(res.body, card.id)).toBe(page(unknown.body, 'Card:00000000-0000-0000-0000-000000000000'));
  });

  it('sets the webhook endpoint, sends the test webhook and rotates the secret, each with the permission the API asks', async () => {
    const platform = await t.newCaller();
    const receiver = await startWebhookReceiver();
    try {
      const transactor = await t.services.tokens.create(platform.platformId, { name: 'console transactor', permissions: ['TRANSACT'], environment: 'sandbox' });
      const limited = new ConsoleClient(t.app);
      await limited.signIn(transactor.clientId, transactor.clientSecret);
      await limited.get('/console/webhooks');
      const refused = await limited.post('/console/webhooks/endpoint', { webhookEndpoint: receiver.url });
      expect(refused.statusCode).toBe(403);
      expect(textOf(refused.body)).toContain('this action needs a token with the MANAGE permission');

      const browser = new ConsoleClient(t.app);
      await browser.signIn(platform.clientId, platform.clientSecret);
      await browser.get('/console/webhooks');
      expect((await browser.post('/console/webhooks/endpoint', { webhookEndpoint: receiver.url })).headers.location).toBe('/console/webhooks?notice=endpoint');
      const before = await t.services.platformConfig.get(platform.platformId);
      expect(before.webhookEndpoint).toBe(receiver.url);
      receiver.trust(before);
      const sent = await browser.post('/console/webhooks/test', {});
      expect(sent.statusCode).toBe(200);
      expect(textOf(sent.body)).toContain(`The test webhook went to ${receiver.url} , which answered 200`);
      expect(receiver.deliveries.at(-1)!.verified).toBe(true);
      const rotated = await browser.post('/console/webhooks/rotate-secret', {});
      const after = await t.services.platformConfig.get(platform.platformId);
      expect(after.webhookSecret).not.toBe(before.webhookSecret);
      expect(textOf(rotated.body)).toContain(after.webhookSecret);
    } finally {
      await receiver.stop();
    }
  });

  it('shows the webhook endpoint and public key, and tokens and configuration', async () => {
    const browser = await signedIn();
    const config = await t.services.platformConfig.get(t.caller.platformId);
    expect(textOf((await browser.get('/console/webhooks')).body)).toContain(config.webhookPublicKey.split('\n')[1]!);
    const settings = textOf((await browser.get('/console/settings')).body);
    expect(settings).toContain(t.caller.clientId);
    expect(settings).not.toContain(config.webhookSecret);
  });

  it("shows the platform's clock on every page and advances it from the settings page through the clock service; VIEW, a form without CSRF and a bad number are refused", async () => {
    const platform = await t.newCaller();
    const other = await t.newCaller();
    const clockLine = (html: string) => /Sandbox clock: ([^(]+) \(([^)]+)\)/.exec(textOf(html))?.slice(1, 3).map((s) => s.trim());
    const browser = new ConsoleClient(t.app);
    await browser.signIn(platform.clientId, platform.clientSecret);
    for (const page of ['/console/customers', '/console/cards', '/console/webhooks', '/console/settings']) {
      const [shown, ahead] = clockLine((await browser.get(page)).body) ?? [];
      expect(ahead, page).toBe('not advanced: real time');
      expect(Math.abs(Date.parse(shown!.replace(' ', 'T')) - Date.now()), page).toBeLessThan(60_000);
    }
    const settings = await browser.get('/console/settings');
    expect(settings.body).toMatch(/<label for="clock-days">Days<\/label>\s*<input id="clock-days" name="days" type="number"/);
    expect(settings.body).toMatch(/<button type="submit">Advance clock<\/button>/);

    const viewer = await t.services.tokens.create(platform.platformId, { name: 'clock viewer', permissions: ['VIEW'], environment: 'sandbox' });
    const limited = new ConsoleClient(t.app);
    await limited.signIn(viewer.clientId, viewer.clientSecret);
    await limited.get('/console/settings');
    const refused = await limited.post('/console/settings/clock', { days: '1' });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('this action needs a token with the TRANSACT permission');
    expect((await browser.post('/console/settings/clock', { days: '1' }, { csrf: false })).statusCode).toBe(403);
    for (const days of ['0', '-1', 'two', '']) {
      const bad = await browser.post('/console/settings/clock', { days });
      expect(bad.statusCode, days).toBe(400);
      expect(textOf(bad.body)).toContain('days must be a positive number of days');
    }
    expect((await platform.req('GET', '/sandbox/clock')).json().advancedBySeconds).toBe(0);

    const before = Date.now();
    const advanced = await browser.post('/console/settings/clock', { days: '2.5' });
    expect(advanced.statusCode).toBe(303);
    const api = (await platform.req('GET', '/sandbox/clock')).json();
    expect(api.advancedBySeconds).toBe(216_000);
    const to = new URL(advanced.headers.location as string, 'http://console').searchParams.get('advanced')!;
    expect(Date.parse(to)).toBeGreaterThanOrEqual(before + 216_000_000);
    const after = await browser.get(advanced.headers.location as string);
    expect(textOf(after.body)).toContain(`Clock advanced to ${to.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}.`);
    expect(clockLine(after.body)![1]).toBe('advanced by 2 days 12 hours');
    const [shownAfter, aheadAfter] = clockLine((await browser.get('/console/customers')).body)!;
    expect(aheadAfter).toBe('advanced by 2 days 12 hours');
    expect(Date.parse(shownAfter!.replace(' ', 'T'))).toBeGreaterThanOrEqual(Date.parse(to) - 1_000);
    // The other platform's console keeps real time.
    const elsewhere = new ConsoleClient(t.app);
    await elsewhere.signIn(other.clientId, other.clientSecret);
    expect(clockLine((await elsewhere.get('/console/settings')).body)![1]).toBe('not advanced: real time');
  });

  it('lists the request log newest first, pages it by cursor, filters it by method, path, status and time, and opens an entry to its redacted bodies', async () => {
    const platform = await t.newCaller();
    const ids: string[] = [];
    const send = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
      const res = await platform.req(method, url, body);
      ids.push(res.headers['x-request-id'] as string);
      return res;
    };
    const created = await send('POST', '/tokens', { name: 'logged', permissions: ['VIEW'] });
    expect(created.statusCode).toBe(201);
    const secret = created.json().clientSecret as string;
    await send('GET', '/customers?limit=0');
    for (let i = 0; i < 20; i++) await send('GET', '/customers');
    const browser = new ConsoleClient(t.app);
    await browser.signIn(platform.clientId, platform.clientSecret);

    const first = await browser.get('/console/requests');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('<a href="/console/requests" aria-current="page">Requests</a>');
    // The console's own pages are not in the log: the 22 API requests are.
    expect(textOf(first.body)).toContain('22 in all');
    const next = /href="([^"]*cursor=[^"]*)">Next page/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    const second = await browser.get(next);
    const listed = [...linksTo(first.body, '/console/requests/'), ...linksTo(second.body, '/console/requests/')].map((href) => href.split('/').pop());
    expect(linksTo(first.body, '/console/requests/')).toHaveLength(20);
    expect([...listed].sort()).toEqual([...ids].sort());
    // Newest first (entries of the same millisecond have no order between them).
    const times = [...first.body.matchAll(/<tr><td>(\d{4}-[^<]+)<\/td>/g), ...second.body.matchAll(/<tr><td>(\d{4}-[^<]+)<\/td>/g)].map((m) => m[1]!);
    expect(times).toHaveLength(22);
    expect(times).toEqual([...times].sort().reverse());

    const ofFilter = async (query: string) => linksTo((await browser.get(`/console/requests?${query}`)).body, '/console/requests/').map((href) => href.split('/').pop());
    expect(await ofFilter('method=POST')).toEqual([ids[0]]);
    expect(await ofFilter('status=400')).toEqual([ids[1]]);
    expect(await ofFilter(`path=${encodeURIComponent(`${BASE}/tokens`)}&method=POST&status=201`)).toEqual([ids[0]]);
    expect(await ofFilter('to=2000-01-01T00:00')).toEqual([]);
    expect(await ofFilter('from=2000-01-01T00:00&status=400')).toEqual([ids[1]]);
    const badTime = await browser.get('/console/requests?from=yesterday');
    expect(badTime.statusCode).toBe(400);
    expect(textOf(badTime.body)).toContain('from');

    const entry = await browser.get(`/console/requests/${ids[0]}`);
    expect(entry.statusCode).toBe(200);
    const text = textOf(entry.body);
    expect(text).toContain(`Method POST Path ${BASE}/tokens Status 201`);
    expect(text).toContain(`Token ${platform.tokenId}`);
    expect(text).toContain('&quot;name&quot;: &quot;logged&quot;');
    expect(text).toContain('&quot;clientSecret&quot;: &quot;[REDACTED]&quot;');
    expect(entry.body).not.toContain(secret);

    // A live refresh answers the table alone, with a request made since.
    const later = (await platform.req('GET', '/tokens')).headers['x-request-id'] as string;
    const fragment = await browser.get('/console/requests', { 'hx-request': 'true' });
    expect(fragment.body.trimStart().startsWith('<div id="requests"')).toBe(true);
    expect(linksTo(fragment.body, '/console/requests/')).toContain(`/console/requests/${later}`);

    const other = await t.newCaller();
    const foreign = (await other.req('GET', '/customers')).headers['x-request-id'] as string;
    expect((await browser.get(`/console/requests/${foreign}`)).statusCode).toBe(404);
  });

  it('lists webhook events newest first, and recovers and replays missing webhooks from the webhooks page through the worker; a VIEW token and a form without CSRF are refused', async () => {
    const platform = await t.newCaller();
    const receiver = await startWebhookReceiver();
    try {
      const since = new Date(Date.now() - 60_000).toISOString().slice(0, 19);
      const events = [await produceEvent(t, platform), await produceEvent(t, platform)];
      await drainJobs(t.services, t.app.log, webhookDeliveryHandler);
      const browser = new ConsoleClient(t.app);
      await browser.signIn(platform.clientId, platform.clientSecret);
      const page = await browser.get('/console/webhooks');
      // Newest first, where the live refresh shows a new event.
      expect(linksTo(page.body, '/console/webhooks/').map((href) => href.split('/').pop())).toEqual([...events].reverse());
      expect(page.body).toMatch(/<label for="recover-since">Recover failed since<\/label>\s*<input id="recover-since" name="since" type="datetime-local"/);
      expect(page.body).toMatch(/<label for="replay-since">Replay missing since<\/label>\s*<input id="replay-since" name="since" type="datetime-local"/);
      const noEndpoint = await browser.post('/console/webhooks/replay-missing', { since });
      expect(noEndpoint.statusCode).toBe(400);
      expect(textOf(noEndpoint.body)).toContain('WEBHOOK_ENDPOINT_NOT_SET');

      await connectReceiver(platform, receiver);
      const viewer = await t.services.tokens.create(platform.platformId, { name: 'console viewer', permissions: ['VIEW'], environment: 'sandbox' });
      const limited = new ConsoleClient(t.app);
      await limited.signIn(viewer.clientId, viewer.clientSecret);
      await limited.get('/console/webhooks');
      for (const mode of ['recover', 'replay-missing']) {
        const refused = await limited.post(`/console/webhooks/${mode}`, { since });
        expect(refused.statusCode, mode).toBe(403);
        expect(textOf(refused.body)).toContain('this action needs a token with the TRANSACT permission');
      }
      expect((await browser.post('/console/webhooks/replay-missing', { since }, { csrf: false })).statusCode).toBe(403);
      expect(await queuedJobs(t.services.store.db, RESEND_WEBHOOKS_JOB)).toBe(0);
      const missing = await browser.post('/console/webhooks/recover', { since: '' });
      expect(missing.statusCode).toBe(400);
      expect(textOf(missing.body)).toContain('since is required');

      // Nothing failed at this endpoint: recover queues none; replay-missing queues both events.
      expect((await browser.post('/console/webhooks/recover', { since })).headers.location).toBe('/console/webhooks?mode=recover&queued=0');
      const replayed = await browser.post('/console/webhooks/replay-missing', { since });
      expect(replayed.headers.location).toBe('/console/webhooks?mode=replay-missing&queued=2');
      expect(textOf((await browser.get(replayed.headers.location as string)).body)).toContain('Replay queued 2 missing events');
      await drainJobs(t.services, t.app.log, resendWebhooksHandler);
      await drainJobs(t.services, t.app.log, webhookDeliveryHandler);
      expect(receiver.deliveries.filter((d) => d.verified).map((d) => d.id).sort()).toEqual([...events].sort());
    } finally {
      await receiver.stop();
    }
  });

  it("logs a console form in the request log like an API call, under the session's token and without its CSRF token; page views are not logged", async () => {
    const card = await activeCard(t);
    const browser = await signedIn();
    await browser.get(`/console/cards/${card.id}`);
    const sent = await browser.post(`/console/cards/${card.id}/simulate/authorization`, { amount: '400', merchantDescriptor: 'LOGGED CAFE' });
    expect(sent.statusCode).toBe(303);
    const path = `/console/cards/${card.id}`;
    const logged = (await t.caller.req('GET', `/request-logs?path=${encodeURIComponent(path)}`)).json();
    expect(logged.data).toHaveLength(1);
    expect(logged.data[0]).toMatchObject({ method: 'POST', path: `${path}/simulate/authorization`, status: 303, tokenId: t.caller.tokenId });
    expect(JSON.parse(logged.data[0].requestBody)).toEqual({ amount: '400', merchantDescriptor: 'LOGGED CAFE' });
    const requests = await browser.get('/console/requests?method=POST');
    expect(requests.body).toContain(`<a href="/console/requests/${logged.data[0].id}">`);
  });
});
