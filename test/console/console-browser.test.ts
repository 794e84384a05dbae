import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorker } from '../../src/jobs/index.js';
import type { Worker } from '../../src/jobs/worker.js';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { usdAccount } from '../helpers/external-accounts.js';
import { approvedCardholder, injectCall, insertTestCustomer, issueCard, untilActive, usdAccountOf } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { connectReceiver, produceEvent, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { launchChromium } from './browser.js';

/** Set to write the screenshots docs/console.md shows (once, on SQLite): UPDATE_CONSOLE_SCREENSHOTS=1. */
const SCREENSHOTS = process.env.UPDATE_CONSOLE_SCREENSHOTS === '1' ? 'docs/console' : undefined;

describeEachEngine('console in a real browser', (t) => {
  let browser: Browser;
  let worker: Worker;
  let receiver: WebhookReceiver;
  let base: string;
  let page: Page;
  let cardId: string;
  let customerId: string;

  const shot = async (name: string) => {
    if (SCREENSHOTS && t.engine === 'sqlite') await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  };
  const nav = () => page.getByRole('navigation', { name: 'Console' });
  /** Marks the document: a reload or navigation loses the mark. */
  const markDocument = () => page.evaluate(() => void ((window as unknown as { consoleMark: number }).consoleMark = 1));
  const documentKept = () => page.evaluate(() => (window as unknown as { consoleMark?: number }).consoleMark === 1);

  beforeAll(async () => {
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
    worker = startWorker(t.services, t.app.log);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    receiver = await startWebhookReceiver();
    await connectReceiver(t.caller, receiver);
    const call = injectCall(t.caller);
    customerId = await insertTestCustomer(t, t.caller, 'BUSINESS');
    const owner = { customerId, roles: ['UBO', 'DIRECTOR'], ownershipPercentage: 60, personalInfo: { firstName: 'Ada', lastName: 'Lovelace', birthDate: '1985-12-10', nationality: 'GB', address: { line1: '1 Market St', postalCode: '94105', country: 'US' }, idType: 'SSN', identifier: '123-45-6789' } };
    expect((await call('POST', '/beneficial-owners', owner)).status).toBe(201);
    const accountId = await approvedCardholder(call, customerId);
    expect((await call('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 10_000 })).status).toBe(200);
    cardId = (await untilActive(call, (await issueCard(call, customerId)).id)).id;
    // Every list the walk opens has an item: this transaction, and the events it and the card made.
    const first = await call('POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount: 300, currency: { code: 'USD' }, merchant: { descriptor: 'FIRST COFFEE' } });
    await until('the first transaction', async () => ((await call('GET', `/transactions/${first.body.cardTransactionId}`)).status === 200 ? true : undefined));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await receiver?.stop();
  });

  it('signs in with the client id and secret', async () => {
    await page.goto(`${base}/console`);
    await expect.poll(() => page.url()).toContain('/console/sign-in');
    await shot('sign-in');
    await page.getByLabel('Client ID', { exact: true }).fill(t.caller.clientId);
    await page.getByLabel('Client secret', { exact: true }).fill(t.caller.clientSecret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
  });

  it("does the demo's tour by clicking only: a business, its owner, its verification, funding, a card, an authorization, the card's reveal, the transaction and its webhook", async () => {
    const main = page.getByRole('main');
    await nav().getByRole('link', { name: 'Customers', exact: true }).click();
    const business = page.getByRole('form', { name: 'New business customer', exact: true });
    for (const [label, value] of [
      ['Legal name', 'Acme Robotics Inc.'],
      ['Incorporated on', '2015-03-02'],
      ['Tax ID', '12-3456789'],
      ['Registration number (optional)', 'C4815162'],
      ['Email (optional)', 'finance@acme.example'],
      ['Address line 1 (optional)', '100 Market St'],
      ['City (optional)', 'San Francisco'],
      ['Postal code (optional)', '94105'],
      ['Country (optional)', 'US'],
    ] as const) await business.getByLabel(label, { exact: true }).fill(value);
    await business.getByLabel('Entity type (optional)', { exact: true }).selectOption('CORPORATION');
    await shot('customers-new');
    await business.getByRole('button', { name: 'Create business customer', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Customer created: kybStatus UNVERIFIED.' }).waitFor();
    const customer = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

    // An owner sent without its roles is refused on the form, the field named; the values stay.
    const owner = page.getByRole('form', { name: 'Add beneficial owner', exact: true });
    for (const [label, value] of [
      ['First name', 'Ada'],
      ['Last name', 'Lovelace'],
      ['Birth date', '1980-01-10'],
      ['Nationality', 'GB'],
      ['Address line 1', '1 Main St'],
      ['Postal code', '94105'],
      ['Country', 'US'],
      ['Identifier', '123-45-6780'],
      ['Ownership percentage', '40'],
    ] as const) await owner.getByLabel(label, { exact: true }).fill(value);
    await owner.getByRole('button', { name: 'Add beneficial owner', exact: true }).click();
    await owner.getByRole('alert').filter({ hasText: 'Roles (roles) is required' }).waitFor();
    expect(await owner.getByLabel('Last name', { exact: true }).inputValue()).toBe('Lovelace');
    await owner.getByRole('checkbox', { name: 'UBO', exact: true }).check();
    await owner.getByRole('checkbox', { name: 'DIRECTOR', exact: true }).check();
    await owner.getByRole('button', { name: 'Add beneficial owner', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Beneficial owner' }).waitFor();
    await main.getByRole('row', { name: /Ada Lovelace UBO, DIRECTOR 40 % UNVERIFIED/ }).waitFor();

    await page.getByRole('button', { name: 'Submit for verification', exact: true }).click();
    await main.locator('#verifications ~ table').getByText('APPROVED', { exact: true }).waitFor();
    expect(await main.locator('.facts').textContent()).toContain('APPROVED');
    await main.getByRole('row', { name: /Ada Lovelace UBO, DIRECTOR 40 % APPROVED/ }).waitFor();

    const fund = page.getByRole('form', { name: 'Fund account', exact: true });
    await fund.getByLabel('Amount', { exact: true }).fill('10000');
    await fund.getByRole('button', { name: 'Fund account', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'funded: available 100.00 USD, total 100.00 USD' }).waitFor();
    await shot('customer-forms');

    const issue = page.getByRole('form', { name: 'Issue card', exact: true });
    await issue.getByLabel('Platform card ID (optional)', { exact: true }).fill('demo-card-042');
    await issue.getByRole('button', { name: 'Issue card', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Card issued' }).waitFor();
    const card = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    // The issuer makes the card ACTIVE through the worker; the open page shows it by itself.
    await page.locator('#card-state').getByText('ACTIVE', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await main.locator('.facts').textContent()).toContain('042');

    const form = page.getByRole('form', { name: 'Simulate authorization', exact: true });
    await form.getByLabel('Amount', { exact: true }).fill('1250');
    await form.getByLabel('Merchant descriptor', { exact: true }).fill('BLUE BOTTLE COFFEE SF');
    await form.getByRole('button', { name: 'Simulate authorization', exact: true }).click();
    const transaction = new URL(page.url()).searchParams.get('transaction')!;
    await page.locator('#card-transactions tr', { hasText: transaction }).getByText('AUTHORIZED').waitFor();
    // The reveal: a single-use link to the card's details, opened in a new tab.
    const last4 = /···· (\d{4})/.exec((await main.locator('.facts').textContent())!)![1]!;
    await page.getByRole('button', { name: 'Reveal card details', exact: true }).click();
    const [details] = await Promise.all([page.waitForEvent('popup'), page.getByRole('link', { name: 'Open the card details', exact: true }).click()]);
    expect((await details.locator('#pan').textContent())!.replaceAll(' ', '')).toMatch(new RegExp(`^\\d{12,15}${last4}$`));
    await details.close();
    await page.getByRole('link', { name: 'Back to the card', exact: true }).click();
    await page.locator('#card-transactions').getByRole('link', { name: transaction, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Transaction ${transaction}` }).waitFor();
    expect(await main.locator('.facts').textContent()).toMatch(/AUTHORIZED[\s\S]*BLUE BOTTLE COFFEE SF[\s\S]*12\.50 USD/);
    await main.getByRole('link', { name: customer, exact: true }).click();
    await main.getByRole('row', { name: /INTERNAL_FIAT ACTIVE 87\.50 USD 100\.00 USD/ }).waitFor();
    const accountId = (await main.getByRole('row', { name: /INTERNAL_FIAT/ }).getByRole('cell').first().textContent())!;
    const entries = await entriesOf(t.services.store.db, accountId);
    expect(entries.reduce((sum, e) => sum + Number(e.amount), 0)).toBe(8_750);
    expect(entries.filter((e) => !['HOLD', 'HOLD_RELEASE'].includes(e.kind)).reduce((sum, e) => sum + Number(e.amount), 0)).toBe(10_000);

    // Its webhook: the newest CARD_TRANSACTION.AUTHORIZED event, carrying the transaction, delivered.
    await nav().getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByLabel('Event type', { exact: true }).fill('CARD_TRANSACTION.AUTHORIZED');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.locator('#events a').first().click();
    await page.getByRole('heading', { level: 1, name: /^Event / }).waitFor();
    expect(await page.locator('pre.payload').textContent()).toContain(transaction);
    await expect.poll(() => page.locator('#attempts tr.attempt').first().textContent(), { timeout: 20_000 }).toContain('200');
    const eventId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    expect(receiver.deliveries.some((d) => d.id === eventId && d.verified)).toBe(true);
    expect((await injectCall(t.caller)('GET', `/cards/${card}`)).body).toMatchObject({ cardholderId: customer, state: 'ACTIVE' });
  });

  it('walks every page from the navigation, and each list links to its items', async () => {
    for (const [link, item] of [['Customers', 'Customer:'], ['Cards', 'Card:'], ['Transactions', 'CardTransaction:'], ['Webhooks', 'Webhook:']] as const) {
      await nav().getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: link }).waitFor();
      await shot(link.toLowerCase());
      await page.locator('main table a', { hasText: item }).first().click();
      await page.getByRole('heading', { level: 1 }).filter({ hasText: item.replace(':', '') }).waitFor();
      expect(await page.locator('.error').count(), page.url()).toBe(0);
      if (link === 'Customers') await page.getByRole('cell', { name: 'Ada Lovelace' }).waitFor();
      await shot(`${link.toLowerCase()}-item`);
    }
    await nav().getByRole('link', { name: 'Tokens and configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tokens and configuration' }).waitFor();
    expect(await page.getByText(t.caller.clientId).count()).toBeGreaterThan(0);
  });

  it('simulates an authorization from the card page; its transaction shows and later changes without a reload', async () => {
    await page.goto(`${base}/console/cards/${cardId}`);
    const form = page.getByRole('form', { name: 'Simulate authorization', exact: true });
    await form.getByLabel('Amount', { exact: true }).fill('1250');
    await form.getByLabel('Merchant descriptor', { exact: true }).fill('BLUE BOTTLE COFFEE SF');
    await form.getByRole('button', { name: 'Simulate authorization', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Simulate authorization: accepted for' }).waitFor();
    const transactionId = new URL(page.url()).searchParams.get('transaction')!;
    const row = page.locator('#card-transactions tr', { hasText: transactionId });
    await row.getByText('AUTHORIZED').waitFor();
    await markDocument();
    // Cleared through the API, elsewhere: the open page shows it by itself.
    const clearing = await injectCall(t.caller)('POST', `/sandbox/cards/${cardId}/simulate/clearing`, { cardTransactionId: transactionId, amount: 1250 });
    expect(clearing.status).toBe(202);
    await row.getByText('SETTLED').waitFor();
    await row.getByText('CLEARING').waitFor();
    expect(await documentKept()).toBe(true);
    await shot('card');
  });

  it('shows a new transaction on the transactions page without a reload', async () => {
    await nav().getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    await markDocument();
    const res = await injectCall(t.caller)('POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount: 700, currency: { code: 'USD' }, merchant: { descriptor: 'LIVE LIST CAFE' } });
    expect(res.status).toBe(202);
    await page.locator('#transactions tr', { hasText: res.body.cardTransactionId }).waitFor();
    // A transfer-in is listed with the card transactions, its type shown.
    const call = injectCall(t.caller);
    const external = await call('POST', '/customers/external-accounts', { customerId, ...usdAccount('123456789000') });
    expect(external.status, JSON.stringify(external.body)).toBe(201);
    const transfer = await call('POST', '/transfer-in', { source: { accountId: external.body.id }, destination: { accountId: await usdAccountOf(call, customerId) }, amount: 500 });
    expect(transfer.status, JSON.stringify(transfer.body)).toBe(201);
    await page.locator('#transactions tr', { hasText: transfer.body.id }).getByText('INCOMING').waitFor();
    expect(await documentKept()).toBe(true);
  });

  it('resends a webhook and shows the new attempt', async () => {
    const events = await until('a delivered event', async () => {
      const list = await t.services.webhookEvents.list(t.caller.platformId, 50, undefined, { deliveryState: 'DELIVERED' });
      return list.data.find((e) => e.type.startsWith('CARD_TRANSACTION'));
    });
    await page.goto(`${base}/console/webhooks/${events.id}`);
    const attempts = page.locator('#attempts tr.attempt');
    const before = await attempts.count();
    expect(before).toBeGreaterThan(0);
    const received = receiver.deliveries.length;
    await page.getByRole('button', { name: 'Resend', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Resend queued' }).waitFor();
    await expect.poll(() => attempts.count(), { timeout: 20_000 }).toBe(before + 1);
    expect(receiver.deliveries.slice(received).some((d) => d.verified && (d.id === events.id || d.body.includes(events.id)))).toBe(true);
    await expect.poll(() => attempts.first().textContent()).toContain('200');
    await shot('webhook-event');
  });

  it('walks the Requests page: a new request appears without a reload and opens to its redacted bodies', async () => {
    await nav().getByRole('link', { name: 'Requests', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await markDocument();
    const res = await t.caller.req('POST', '/tokens', { name: 'seen in the console', permissions: ['VIEW'] });
    expect(res.statusCode).toBe(201);
    const requestId = res.headers['x-request-id'] as string;
    const link = page.locator('#requests a', { hasText: requestId });
    await link.waitFor();
    expect(await documentKept()).toBe(true);
    await shot('requests');
    await link.click();
    await page.getByRole('heading', { level: 1, name: `Request ${requestId}` }).waitFor();
    const response = await page.getByLabel('Response body', { exact: true }).textContent();
    expect(response).toContain('"clientSecret": "[REDACTED]"');
    expect(response).not.toContain(res.json().clientSecret);
    expect(await page.getByLabel('Request body', { exact: true }).textContent()).toContain('seen in the console');
    await shot('requests-item');
  });

  it('recovers a failed webhook from the webhooks page and shows how many it queued', async () => {
    const pending = async () => (await t.services.webhookEvents.list(t.caller.platformId, 1, undefined, { deliveryState: 'PENDING' })).data.length;
    await until('no delivery under way', async () => ((await pending()) === 0 ? true : undefined), 20_000);
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 16);
    receiver.failNext = 1;
    const eventId = await produceEvent(t, t.caller);
    const failed = await until('a failed attempt', async () => {
      const event = await t.services.webhookEvents.get(t.caller.platformId, eventId);
      return event.attempts.length > 0 ? event : undefined;
    }, 20_000);
    expect(failed.deliveryState).not.toBe('DELIVERED');
    await nav().getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByLabel('Recover failed since', { exact: true }).fill(since);
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /Recover queued [1-9]\d* failed event/ }).waitFor();
    await shot('webhooks-recover');
    await until('the recovered delivery', async () => (receiver.deliveries.some((d) => d.id === eventId && d.verified && d.answeredStatus < 300) ? true : undefined), 20_000);
  });

  it('signs in with the keyboard alone, and the skip link leads to the content', async () => {
    const context = await browser.newContext();
    const other = await context.newPage();
    await other.goto(`${base}/console/sign-in`);
    await other.keyboard.press('Tab');
    expect(await other.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await other.keyboard.press('Enter');
    expect(new URL(other.url()).hash).toBe('#main');
    await other.getByLabel('Client ID', { exact: true }).focus();
    await other.keyboard.type(t.caller.clientId);
    await other.keyboard.press('Tab');
    await other.keyboard.type(t.caller.clientSecret);
    await other.keyboard.press('Enter');
    await other.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
    await context.close();
  });

  it("refuses a VIEW token's forms with a clear message", async () => {
    const viewer = await t.services.tokens.create(t.caller.platformId, { name: 'browser viewer', permissions: ['VIEW'], environment: 'sandbox' });
    const context = await browser.newContext();
    const other = await context.newPage();
    await other.goto(`${base}/console/sign-in`);
    await other.getByLabel('Client ID', { exact: true }).fill(viewer.clientId);
    await other.getByLabel('Client secret', { exact: true }).fill(viewer.clientSecret);
    await other.getByRole('button', { name: 'Sign in', exact: true }).click();
    await other.goto(`${base}/console/cards/${cardId}`);
    const form = other.getByRole('form', { name: 'Simulate authorization', exact: true });
    await form.getByLabel('Amount', { exact: true }).fill('100');
    await form.getByRole('button', { name: 'Simulate authorization', exact: true }).click();
    await other.getByRole('alert').filter({ hasText: 'You are signed in with a VIEW token' }).waitFor();
    expect(await other.getByRole('heading', { level: 1 }).textContent()).toBe('403 FORBIDDEN');
    await other.goto(`${base}/console/webhooks`);
    await other.getByLabel('Replay missing since', { exact: true }).fill('2020-01-01T00:00');
    await other.getByRole('button', { name: 'Replay missing', exact: true }).click();
    await other.getByRole('alert').filter({ hasText: 'needs a token with the TRANSACT permission' }).waitFor();
    await context.close();
  });

  it("advances the platform's clock from the settings page and shows the new time on it and every other page", async () => {
    const DAYS = 3;
    await nav().getByRole('link', { name: 'Tokens and configuration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tokens and configuration' }).waitFor();
    expect(await page.locator('#clock').textContent()).toContain('(not advanced: real time)');
    const before = Date.now();
    await page.getByLabel('Days', { exact: true }).fill(String(DAYS));
    await page.getByRole('button', { name: 'Advance clock', exact: true }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Clock advanced to' });
    await notice.waitFor();
    const shown = /Clock advanced to (\S+ \S+)\./.exec((await notice.textContent())!)![1]!;
    expect(Date.parse(shown.replace(' ', 'T'))).toBeGreaterThanOrEqual(before + DAYS * 86_400_000 - 1_000);
    expect(await page.locator('#clock').textContent()).toContain(`(advanced by ${DAYS} days)`);
    expect((await injectCall(t.caller)('GET', '/sandbox/clock')).body.advancedBySeconds).toBe(DAYS * 86_400);
    await shot('settings');
    await nav().getByRole('link', { name: 'Cards', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Cards' }).waitFor();
    expect(await page.locator('#clock').textContent()).toContain(`(advanced by ${DAYS} days)`);
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.goto(`${base}/console/customers`);
    await expect.poll(() => page.url()).toContain('/console/sign-in');
  });
});
