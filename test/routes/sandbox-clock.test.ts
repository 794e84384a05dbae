import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startWorker } from '../../src/jobs/index.js';
import { openServices } from '../../src/services.js';
import type { Worker } from '../../src/jobs/worker.js';
import { expectErrorObject } from '../helpers/error-object.js';
import { activeFundedCard } from '../helpers/money.js';
import { BASE, describeEachEngine, type Caller } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectReceiver, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const DAY = 86_400;
const MERCHANT = { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' };

describeEachEngine('the sandbox clock', (t) => {
  let receiver: WebhookReceiver;
  let worker: Worker;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    worker = startWorker(t.services, t.app.log);
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.stop();
  });

  const clock = async (caller: Caller) => {
    const res = await caller.req('GET', '/sandbox/clock');
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { now: string; advancedBySeconds: number };
  };
  const advance = async (caller: Caller, body: unknown) => {
    const res = await caller.req('POST', '/sandbox/clock/advance', body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { now: string; advancedBySeconds: number };
  };
  const txn = async (caller: Caller, id: string) => (await caller.req('GET', `/transactions/${id}`)).json();
  async function authorized(caller: Caller, cardId: string, amount: number): Promise<string> {
    const res = await caller.req('POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount, currency: { code: 'USD' }, merchant: MERCHANT });
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().cardTransactionId as string;
    await until('the authorization to land', async () => ((await txn(caller, id)).status === 'AUTHORIZED' ? true : undefined));
    return id;
  }
  async function balances(caller: Caller, customerId: string, accountId: string) {
    const page = (await caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)).json();
    const account = page.data.find((a: { id: string }) => a.id === accountId);
    const entries = await t.services.store.db.selectFrom('ledger_entries').select(['kind', 'amount']).where('account_id', '=', accountId).execute();
    const available = entries.reduce((s, e) => s + Number(e.amount), 0);
    const total = entries.filter((e) => e.kind !== 'HOLD' && e.kind !== 'HOLD_RELEASE').reduce((s, e) => s + Number(e.amount), 0);
    return { api: { available: account.balance.amount, total: account.totalBalance.amount }, ledger: { available, total } };
  }

  it('starts at real time, not advanced', async () => {
    const before = Date.now();
    const c = await clock(await t.newCaller());
    expect(c.advancedBySeconds).toBe(0);
    expect(Date.parse(c.now)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(c.now)).toBeLessThanOrEqual(Date.now());
  });

  it('expires a fully open authorization by itself after an 8-day advance: EXPIRED, hold released, one verified webhook; a partly settled one stays', { timeout: 60_000 }, async () => {
    const caller = await t.newCaller();
    await connectReceiver(caller, receiver);
    const { cardId, accountId, cardholderId } = await activeFundedCard(t, caller, 10_000);
    const open = await authorized(caller, cardId, 1_500);
    const partly = await authorized(caller, cardId, 2_000);
    expect((await caller.req('POST', `/sandbox/cards/${cardId}/simulate/clearing`, { cardTransactionId: partly, amount: 500 })).statusCode).toBe(202);
    await until('the clearing to land', async () => ((await txn(caller, partly)).status === 'PARTIALLY_SETTLED' ? true : undefined));
    expect((await balances(caller, cardholderId, accountId)).api.available).toBe(10_000 - 1_500 - 2_000);

    const answered = await advance(caller, { seconds: 8 * DAY });
    expect(answered.advancedBySeconds).toBeGreaterThanOrEqual(8 * DAY);
    expect(answered.advancedBySeconds).toBeLessThanOrEqual(8 * DAY + 1);
    // Answered only once the expiry has landed.
    const expired = await txn(caller, open);
    expect(expired.status).toBe('EXPIRED');
    expect(expired.operations.at(-1)).toMatchObject({ kind: 'AUTHORIZATION_EXPIRY', amount: 1_500, status: 'LANDED' });
    expect((await txn(caller, partly)).status).toBe('PARTIALLY_SETTLED');
    const money = await balances(caller, cardholderId, accountId);
    expect(money.api).toEqual(money.ledger);
    expect(money.api.available).toBe(10_000 - 500 - 1_500);

    const webhook = await until('the EXPIRED webhook', async () =>
      receiver.deliveries.find((d) => d.verified && JSON.parse(d.body).type === 'CARD_TRANSACTION.EXPIRED' && JSON.parse(d.body).data.id === open),
    );
    const body = JSON.parse(webhook.body);
    expect(Math.abs(Date.parse(body.timestamp) - Date.parse(answered.now))).toBeLessThan(10_000);
    // Another advance finds nothing more to expire: exactly one webhook.
    await advance(caller, { seconds: 60 });
    const expiredEvents = await t.services.store.db.selectFrom('webhook_events').select('id').where('platform_id', '=', caller.platformId).where('type', '=', 'CARD_TRANSACTION.EXPIRED').execute();
    expect(expiredEvents).toHaveLength(1);
  });

  it('stamps objects made after an advance with the clock time: customer, card, config, webhook event', async () => {
    const caller = await t.newCaller();
    const { now } = await advance(caller, { to: new Date(Date.now() + 30 * DAY * 1000).toISOString() });
    const near = (iso: string) => expect(Math.abs(Date.parse(iso) - Date.parse(now)), `${iso} near ${now}`).toBeLessThan(10_000);
    const { cardId } = await activeFundedCard(t, caller, 0);
    const card = (await caller.req('GET', `/cards/${cardId}`)).json();
    near(card.createdAt);
    const created = await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith', birthDate: '1990-01-15', nationality: 'MX', phoneNumber: '+525512345678' });
    expect(created.statusCode, created.body).toBe(201);
    near(created.json().createdAt);
    const config = await caller.req('PATCH', '/config', { umaDomain: 'clock.example.com' });
    expect(config.statusCode, config.body).toBe(200);
    near(config.json().updatedAt);
    const events = (await caller.req('GET', '/webhook-events?limit=5')).json();
    expect(events.data.length).toBeGreaterThan(0);
    // The card's provisioning (ACTIVE) and the new customer's webhooks, stamped on the platform's clock.
    for (const e of events.data) near(e.createdAt);
  });

  it('serializes concurrent advances of one platform: each one counts', async () => {
    const caller = await t.newCaller();
    const answers = await Promise.all([1, 2, 3].map(() => advance(caller, { seconds: DAY })));
    expect(answers.map((a) => a.advancedBySeconds).sort((a, b) => a - b)).toEqual([DAY, 2 * DAY, 3 * DAY]);
    expect((await clock(caller)).advancedBySeconds).toBe(3 * DAY);
  });

  it("keeps each platform's clock to itself", async () => {
    const a = await t.newCaller();
    const b = await t.newCaller();
    await advance(a, { seconds: 3 * DAY });
    expect((await clock(a)).advancedBySeconds).toBe(3 * DAY);
    expect((await clock(b)).advancedBySeconds).toBe(0);
  });

  it('refuses zero, backwards, beyond two years, both or neither field, naming the field', async () => {
    const caller = await t.newCaller();
    const bad = async (body: unknown, field: string) => {
      const res = await caller.req('POST', '/sandbox/clock/advance', body);
      const err = expectErrorObject(res, JSON.stringify(body));
      expect(err).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
      expect(JSON.stringify(err.details), JSON.stringify(body)).toContain(field);
    };
    await bad({ seconds: 0 }, 'seconds');
    await bad({ seconds: -60 }, 'seconds');
    await bad({ seconds: 2 * 366 * DAY }, 'seconds');
    await bad({ to: new Date(Date.now() - 60_000).toISOString() }, 'to');
    await bad({ to: new Date(Date.now() + 3 * 365 * DAY * 1000).toISOString() }, 'to');
    await bad({ to: 'tomorrow' }, 'to');
    await bad({ seconds: 60, to: new Date(Date.now() + 120_000).toISOString() }, 'to');
    await bad({}, 'seconds');
    await bad({ seconds: 60, hours: 1 }, 'hours');
    expect((await clock(caller)).advancedBySeconds).toBe(0);
  });

  it("expires after the platform's own time-to-live, set through PATCH /config, and refuses one out of range naming it", { timeout: 60_000 }, async () => {
    const caller = await t.newCaller();
    expect((await caller.req('GET', '/config')).json().sandboxAuthorizationTtlSeconds).toBe(7 * DAY);
    const refused = expectErrorObject(await caller.req('PATCH', '/config', { sandboxAuthorizationTtlSeconds: 59 }), 'ttl 59');
    expect(JSON.stringify(refused.details)).toContain('sandboxAuthorizationTtlSeconds');
    const patched = await caller.req('PATCH', '/config', { sandboxAuthorizationTtlSeconds: 3_600 });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().sandboxAuthorizationTtlSeconds).toBe(3_600);
    const { cardId } = await activeFundedCard(t, caller, 10_000);
    const id = await authorized(caller, cardId, 700);
    await advance(caller, { seconds: 3_000 });
    expect((await txn(caller, id)).status).toBe('AUTHORIZED');
    await advance(caller, { seconds: 700 });
    expect((await txn(caller, id)).status).toBe('EXPIRED');
    const reset = await caller.req('PATCH', '/config', { sandboxAuthorizationTtlSeconds: null });
    expect(reset.json().sandboxAuthorizationTtlSeconds).toBe(7 * DAY);
  });

  it('lands a delayed outcome (the 005 delayed pull) on an advance past its due time, before answering', { timeout: 60_000 }, async () => {
    const caller = await t.newCaller();
    const { cardId } = await activeFundedCard(t, caller, 10_000);
    const res = await caller.req('POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount: 800, currency: { code: 'USD' }, merchant: { descriptor: 'SLOW PULL 005' } });
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json().cardTransactionId as string;
    const pending = await until('the authorization to land', async () => {
      const body = await txn(caller, id);
      return body.status === 'AUTHORIZED' ? body : undefined;
    });
    expect(pending.pullSummary.pendingCount).toBe(1);
    await advance(caller, { seconds: 60 });
    const confirmed = await txn(caller, id);
    expect(confirmed.pullSummary.pendingCount).toBe(0);
    expect(confirmed.operations.at(-1)).toMatchObject({ kind: 'PULL_CONFIRMATION', status: 'LANDED' });
  });

  it('lands the 005 delayed card activation on an advance past its due time, before answering', { timeout: 60_000 }, async () => {
    const caller = await t.newCaller();
    const { cardholderId, accountId } = await activeFundedCard(t, caller, 0);
    const issued = await caller.req('POST', '/cards', { cardholderId, platformCardId: 'clock-slow-005', form: 'VIRTUAL', fundingSources: [accountId] });
    expect(issued.statusCode, issued.body).toBe(201);
    const cardId = issued.json().id as string;
    // Due SANDBOX_DELAYED_ACTIVATION_MS (30 s by default) later on the platform's clock: still PROCESSING now.
    expect((await caller.req('GET', `/cards/${cardId}`)).json().state).toBe('PROCESSING');
    await advance(caller, { seconds: 60 });
    expect((await caller.req('GET', `/cards/${cardId}`)).json()).toMatchObject({ state: 'ACTIVE', last4: '4005' });
  });

  it('agrees across two processes on one database: advanced through one, the other reads and stamps the same time', { timeout: 60_000 }, async () => {
    const services = await openServices(loadConfig({ ...t.db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent' }));
    const other = await buildApp(services);
    try {
      const caller = await t.newCaller();
      const viaOther = (method: 'GET' | 'POST', url: string, body?: object) =>
        other.inject({ method, url: `${BASE}${url}`, headers: { authorization: caller.auth }, ...(body ? { payload: body } : {}) });
      const customer = { customerType: 'INDIVIDUAL', fullName: 'Jane Smith', birthDate: '1990-01-15', nationality: 'MX', phoneNumber: '+525512345678' };
      // The other process stamps once first, so it has read (and, on PostgreSQL, kept) the offset 0.
      const first = await viaOther('POST', '/customers', customer);
      expect(first.statusCode, first.body).toBe(201);
      expect(Math.abs(Date.parse(first.json().createdAt) - Date.now())).toBeLessThan(10_000);

      const started = Date.now();
      const answered = await advance(caller, { seconds: 10 * DAY });
      // Stamped before the other process reads the clock route (which reads the offset afresh).
      const stamped = (await viaOther('POST', '/customers', customer)).json();
      const read = (await viaOther('GET', '/sandbox/clock')).json();
      const elapsed = Date.now() - started;
      expect(read.advancedBySeconds).toBe(answered.advancedBySeconds);
      for (const at of [read.now, stamped.createdAt]) {
        expect(Date.parse(at)).toBeGreaterThanOrEqual(Date.parse(answered.now));
        expect(Date.parse(at) - Date.parse(answered.now)).toBeLessThanOrEqual(elapsed + 5);
      }
    } finally {
      await other.close();
      await services.store.close();
    }
  });

  it("the worker's sweep expires, on the platform's clock, what ran out in real time, once", { timeout: 60_000 }, async () => {
    const caller = await t.newCaller();
    await advance(caller, { seconds: DAY });
    const { cardId } = await activeFundedCard(t, caller, 10_000);
    const old = await authorized(caller, cardId, 300);
    const young = await authorized(caller, cardId, 400);
    // Authorized 7 days and a minute ago by the platform's clock (a day ahead of real time): due.
    const clockNow = Date.parse((await clock(caller)).now);
    await t.services.store.db.updateTable('card_transactions').set({ authorized_at: clockNow - 7 * DAY * 1000 - 60_000 }).where('id', '=', old).execute();
    expect(await t.services.sandboxClock.sweep(t.app.log)).toBeGreaterThanOrEqual(1);
    expect((await txn(caller, old)).status).toBe('EXPIRED');
    expect((await txn(caller, young)).status).toBe('AUTHORIZED');
    await t.services.sandboxClock.sweep(t.app.log);
    const ops = (await txn(caller, old)).operations.filter((o: { kind: string }) => o.kind === 'AUTHORIZATION_EXPIRY');
    expect(ops).toHaveLength(1);
  });

  it('has no clock for a production token', async () => {
    const production = await t.newCaller('production');
    expect((await production.req('GET', '/sandbox/clock')).statusCode).toBe(404);
    expect((await production.req('POST', '/sandbox/clock/advance', { seconds: 60 })).statusCode).toBe(404);
  });
}, { WORKER_ENABLED: '1', SANDBOX_DELAYED_PULL_MS: '30000' });

