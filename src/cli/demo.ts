/**
 * `npm run demo`: a guided tour for a newcomer. Starts the service on a temporary SQLite directory
 * (or uses BASE_URL + CLIENT_ID + CLIENT_SECRET), starts a local receiver that verifies both
 * signatures of every webhook (X-Grid-Signature with Node's crypto and the platform's public key,
 * the Standard Webhooks headers with the standardwebhooks package), and walks through customers,
 * owners, a funded card and its simulators, a card reveal, a transfer in and out of a bank account, and a quote from USD to a euro bank account executed, printing each request, response and
 * webhook with both checks and the account's balances after each step. Exits 0 only if the test
 * webhook and every expected event arrived verified both ways, every balance is what the ledger's
 * arithmetic says, and the reveal URL showed a Luhn-valid PAN ending in last4 once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from './server-process.js';
import luhnValid from 'fast-luhn';
import { WebhookReceiver, type ReceivedWebhook } from './webhook-receiver.js';

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
const dim = paint(2);
const green = paint(32);
const red = paint(31);
const cyan = paint(36);
const bold = paint(1);

function show(value: unknown, max = 700): string {
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

interface Target {
  baseUrl: string;
  auth: string;
  stop(): Promise<void>;
}

/** Starts `src/server.ts` on a fresh SQLite directory and takes the first-start credentials from its banner. */
async function startService(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-demo-'));
  const server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', SERVICE_ENV: 'sandbox', WORKER_ENABLED: '1' });
  console.log(dim(`Started the service (SQLite in ${dataDir}) at ${server.baseUrl}`));
  return {
    baseUrl: server.baseUrl,
    auth: server.auth!,
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function existingService(): Target | undefined {
  const { BASE_URL, CLIENT_ID, CLIENT_SECRET } = process.env;
  if (!BASE_URL) return undefined;
  if (!CLIENT_ID || !CLIENT_SECRET) throw new Error('BASE_URL needs CLIENT_ID and CLIENT_SECRET (a sandbox token: npm run --silent cli -- tokens create)');
  console.log(dim(`Using the running service at ${BASE_URL}`));
  return { baseUrl: BASE_URL.replace(/\/$/, ''), auth: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`, stop: async () => {} };
}

interface Balances {
  available: number;
  total: number;
}

interface BalanceCheck {
  step: string;
  expected: Balances;
  got: Balances;
}

interface Expectation {
  step: string;
  token: string;
  type: string;
  calledAt: number;
  webhook?: ReceivedWebhook;
}

async function main(): Promise<number> {
  const target = existingService() ?? (await startService());
  const expectations: Expectation[] = [];
  const byToken = new Map<string, Expectation>();
  const arrived = new Set<string>();
  let testWebhook: ReceivedWebhook | undefined;
  const balanceWebhooks: ReceivedWebhook[] = [];
  const balanceChecks: BalanceCheck[] = [];
  /** The transfers made, each awaiting its final webhook (matched by the transaction id). */
  const transfers: { step: string; id: string; type: string; webhook?: ReceivedWebhook }[] = [];
  const receiver = new WebhookReceiver({
    onDelivery: (d) => {
      if (d.verified && d.payload?.type === 'INTERNAL_ACCOUNT.BALANCE_UPDATED') balanceWebhooks.push(d);
      const transfer = transfers.find((x) => x.id === (d.payload?.data as { id?: string } | undefined)?.id && x.type === d.payload?.type);
      if (transfer && !transfer.webhook && d.verified) transfer.webhook = d;
      const operation = (d.payload?.operation ?? {}) as { issuerTransactionToken?: string };
      const token = operation.issuerTransactionToken;
      const exp = token ? byToken.get(token) : undefined;
      if (exp && !exp.webhook && d.verified) exp.webhook = d;
      const check = (name: string, ok: boolean) => (ok ? green(`${name} ✓`) : red(`${name} ✗`));
      const mark = `${check('X-Grid-Signature', d.gridVerified)} ${check('webhook-signature', d.standardVerified)}${d.verified ? '' : red(` (${d.verifyError})`)}`;
      const match = exp ? `matches ${bold(exp.step)} by issuerTransactionToken, ${Date.now() - exp.calledAt} ms after its 202` : dim('no simulate call to match');
      console.log(`   ${cyan('⇐ webhook')} ${d.payload?.type ?? '?'} webhook-id=${d.id} ${mark}; ${match}`);
      if (d.payload) console.log(`     ${dim(show(d.payload, 400))}`);
      if (token) arrived.add(token);
    },
  });
  await receiver.start();

  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    console.log(`\n${bold('→')} ${method} ${path}${body === undefined ? '' : ` ${show(body, 400)}`}`);
    const res = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers: { authorization: target.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const json = text ? JSON.parse(text) : undefined;
    console.log(`${res.ok ? green('←') : red('←')} ${res.status} ${show(json)}`);
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}`);
    return { status: res.status, json };
  };
  /** A GET that prints nothing, for polling. */
  const quiet = async (method: string, path: string): Promise<any> => {
    const res = await fetch(`${target.baseUrl}${path}`, { method, headers: { authorization: target.auth } });
    return res.json();
  };
  const poll = async (probe: () => Promise<true | undefined>, timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await probe()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  };
  /** Opens the reveal URL twice: the page once (its PAN shown masked here), then 404. True when both are as documented. */
  const revealCard = async (card: { id: string; last4: string }): Promise<boolean> => {
    const { panEmbedUrl, expiresAt } = (await call('POST', `/cards/${card.id}/reveal`)).json;
    const page = await fetch(panEmbedUrl);
    const pan = /id="pan">([\d ]+)</.exec(await page.text())?.[1]?.replaceAll(' ', '') ?? '';
    const valid = page.status === 200 && pan.endsWith(card.last4) && luhnValid(pan);
    console.log(`   ${valid ? green('✓') : red('✗')} the page answered ${page.status}: PAN ${'•'.repeat(Math.max(0, pan.length - 4))}${pan.slice(-4)} (Luhn ${luhnValid(pan) ? 'valid' : 'invalid'}), until ${expiresAt}`);
    const again = await fetch(panEmbedUrl);
    console.log(`   ${again.status === 404 ? green('✓') : red('✗')} a second use answered ${again.status} ${(await again.json()).code}`);
    return valid && again.status === 404;
  };
  const waitForWebhook = async (token: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!arrived.has(token) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  };
  const simulate = async (step: string, cardId: string, kind: string, body: unknown, type: string) => {
    const calledAt = Date.now();
    const { json } = await call('POST', `/sandbox/cards/${cardId}/simulate/${kind}`, body);
    const exp: Expectation = { step, token: json.issuerTransactionToken, type, calledAt };
    expectations.push(exp);
    byToken.set(exp.token, exp);
    await waitForWebhook(exp.token);
    return json;
  };

  /** Reads the account and checks its balances against what the ledger's arithmetic says they must be. */
  const showBalance = async (step: string, customerId: string, expected: Balances) => {
    const account = (await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)).json.data[0];
    const got = { available: account.balance.amount as number, total: account.totalBalance.amount as number };
    balanceChecks.push({ step, expected, got });
    const good = got.available === expected.available && got.total === expected.total;
    const text = `available ${got.available} / total ${got.total}`;
    console.log(`   ${good ? green('✓') : red('✗')} balance after ${step}: ${bold(text)}${good ? dim(' (as the ledger says)') : red(` (the ledger says available ${expected.available} / total ${expected.total})`)}`);
  };
  const waitForBalanceWebhook = async (accountId: string, available: number, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    const match = () => balanceWebhooks.find((d) => (d.payload?.data as { id?: string })?.id === accountId && (d.payload?.data as { balance?: { amount?: number } })?.balance?.amount === available);
    while (!match() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return match();
  };
  let fundingWebhook: ReceivedWebhook | undefined;
  let revealed = false;
  let kybWebhook: ReceivedWebhook | undefined;

  try {
    console.log(bold('\n1. Point the platform\'s webhooks at a local receiver'));
    const config = (await call('PATCH', '/config', { webhookEndpoint: receiver.url })).json;
    receiver.trust(config);
    console.log(dim('   The receiver checks both signatures of each delivery, on the raw body:'));
    console.log(dim("     X-Grid-Signature:  crypto.verify('sha256', body, webhookPublicKey, Buffer.from(header, 'base64'))"));
    console.log(dim(`     webhook-signature: new Webhook("${config.webhookSecret.slice(0, 12)}…").verify(body, headers)   (standardwebhooks)`));
    const before = receiver.deliveries.length;
    await call('POST', '/sandbox/webhooks/test');
    testWebhook = receiver.deliveries.slice(before).find((d) => d.payload?.type === 'TEST');

    console.log(bold('\n2. A business customer with its beneficial owners'));
    const customer = (
      await call('POST', '/customers', {
        customerType: 'BUSINESS',
        platformCustomerId: `demo-${Date.now()}`,
        email: 'finance@acme.example',
        businessInfo: { legalName: 'Acme Robotics Inc.', incorporatedOn: '2015-03-02', taxId: '12-3456789', entityType: 'CORPORATION', registrationNumber: 'C4815162' },
        address: { line1: '100 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
      })
    ).json;
    const owners = [
      { firstName: 'Ada', lastName: 'Lovelace', roles: ['UBO', 'DIRECTOR'], ownershipPercentage: 40, nationality: 'GB' },
      { firstName: 'Grace', lastName: 'Hopper', roles: ['UBO'], ownershipPercentage: 35, nationality: 'US' },
      { firstName: 'Alan', lastName: 'Turing', roles: ['COMPANY_OFFICER'], ownershipPercentage: 0, nationality: 'GB' },
    ];
    for (const [i, o] of owners.entries()) {
      await call('POST', '/beneficial-owners', {
        customerId: customer.id,
        roles: o.roles,
        ownershipPercentage: o.ownershipPercentage,
        personalInfo: {
          firstName: o.firstName,
          lastName: o.lastName,
          birthDate: `198${i}-0${i + 1}-1${i}`,
          nationality: o.nationality,
          email: `${o.firstName.toLowerCase()}@acme.example`,
          phoneNumber: `+1415555010${i}`,
          address: { line1: `${i + 1} Main St`, city: 'San Francisco', postalCode: '94105', country: 'US' },
          idType: 'SSN',
          identifier: `123-45-678${i}`,
        },
      });
    }
    console.log(bold('\n3. List the owners, two per page'));
    let cursor: string | undefined;
    let listed = 0;
    do {
      const page = (await call('GET', `/beneficial-owners?customerId=${encodeURIComponent(customer.id)}&limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json;
      listed += page.data.length;
      cursor = page.nextCursor;
    } while (cursor);
    console.log(dim(`   ${listed} owners listed`));

    console.log(bold('\n4. Verify the business (POST /verifications), fund its USD internal account and issue a virtual card drawing on it'));
    // In the sandbox a registration number not ending in 001, 002 or 003 approves the business at once.
    const verification = (await call('POST', '/verifications', { customerId: customer.id })).json;
    if (verification.verificationStatus !== 'APPROVED') throw new Error(`verification ${verification.id} is ${verification.verificationStatus}, not APPROVED`);
    await poll(async () => (receiver.deliveries.some((d) => d.payload?.type === 'CUSTOMER.KYB_APPROVED' && (d.payload.data as { id?: string })?.id === customer.id) ? true : undefined), 10_000);
    kybWebhook = receiver.deliveries.find((d) => d.payload?.type === 'CUSTOMER.KYB_APPROVED' && (d.payload.data as { id?: string })?.id === customer.id);
    console.log(`   ${kybWebhook?.verified ? green('✓') : red('✗')} CUSTOMER.KYB_APPROVED ${kybWebhook ? (kybWebhook.verified ? 'arrived verified both ways' : 'arrived NOT verified') : 'did not arrive'}`);
    await call('GET', `/customers/${customer.id}`);
    const account = (await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&currency=USD&type=INTERNAL_FIAT`)).json.data[0];
    await call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 10_000 });
    fundingWebhook = await waitForBalanceWebhook(account.id, 10_000);
    console.log(`   ${fundingWebhook ? green('✓') : red('✗')} INTERNAL_ACCOUNT.BALANCE_UPDATED for the funding ${fundingWebhook ? 'arrived verified both ways' : 'did not arrive'}`);
    await showBalance('funding 10000', customer.id, { available: 10_000, total: 10_000 });
    const issued = (await call('POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL', platformCardId: 'demo-card-042', fundingSources: [account.id] })).json;
    console.log(dim(`   The card starts ${issued.state}; the issuer makes it ACTIVE shortly after (CARD.STATE_CHANGE). Its last4 ${issued.last4} comes from the suffix 042 of platformCardId.`));
    const active = await poll(async () => ((await quiet('GET', `/cards/${issued.id}`)).state === 'ACTIVE' ? true : undefined), 10_000);
    if (!active) throw new Error(`card ${issued.id} did not become ACTIVE`);
    const card = (await call('GET', `/cards/${issued.id}`)).json;

    console.log(bold('\n5. An authorization that expires: the hold, then its release'));
    const auth1 = await simulate('authorization #1', card.id, 'authorization', { amount: 1250, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } }, 'CARD_TRANSACTION.AUTHORIZED');
    await showBalance('authorization #1 (1250 held)', customer.id, { available: 8_750, total: 10_000 });
    await simulate('authorization_expiry #1', card.id, 'authorization_expiry', { cardTransactionId: auth1.cardTransactionId }, 'CARD_TRANSACTION.EXPIRED');
    await showBalance('expiry #1 (hold released)', customer.id, { available: 10_000, total: 10_000 });

    console.log(bold('\n6. An authorization through clearing, return and return reversal'));
    const auth2 = await simulate('authorization #2', card.id, 'authorization', { amount: 4200, currency: { code: 'USD' }, merchant: { descriptor: 'CITY BIKES', country: 'US' } }, 'CARD_TRANSACTION.AUTHORIZED');
    await showBalance('authorization #2 (4200 held)', customer.id, { available: 5_800, total: 10_000 });
    await simulate('clearing #2', card.id, 'clearing', { cardTransactionId: auth2.cardTransactionId, amount: 4200 }, 'CARD_TRANSACTION.SETTLED');
    await showBalance('clearing #2 (hold debited)', customer.id, { available: 5_800, total: 5_800 });
    await simulate('return #2', card.id, 'return', { cardTransactionId: auth2.cardTransactionId, amount: 4200 }, 'CARD_TRANSACTION.REFUNDED');
    await showBalance('return #2 (credited)', customer.id, { available: 10_000, total: 10_000 });
    await simulate('return_reversal #2', card.id, 'return_reversal', { cardTransactionId: auth2.cardTransactionId }, 'CARD_TRANSACTION.SETTLED');
    await showBalance('return_reversal #2 (debited again)', customer.id, { available: 5_800, total: 5_800 });
    await call('GET', `/transactions/${auth2.cardTransactionId}`);

    console.log(bold('\n7. A declined authorization (merchant descriptor ending in 002: INSUFFICIENT_FUNDS)'));
    const auth3 = await simulate('authorization #3', card.id, 'authorization', { amount: 500, currency: { code: 'USD' }, merchant: { descriptor: 'AMAZON RETAIL US-002' } }, 'CARD_TRANSACTION.DECLINED');
    const declined = (await call('GET', `/transactions/${auth3.cardTransactionId}`)).json;
    console.log(dim(`   status ${declined.status}, declineReason ${declined.declineReason}: ${declined.operations[0]?.reason}`));
    await showBalance('the declined authorization (nothing held)', customer.id, { available: 5_800, total: 5_800 });

    console.log(bold('\n8. Single-message and credit authorizations, and a balance inquiry'));
    await simulate('financial_authorization', card.id, 'financial_authorization', { amount: 1000, currency: { code: 'USD' }, merchant: { descriptor: 'ATM WITHDRAWAL 24TH ST', mcc: '6011', country: 'US' } }, 'CARD_TRANSACTION.SETTLED');
    await showBalance('financial authorization (debited at once, nothing held)', customer.id, { available: 4_800, total: 4_800 });
    const credit = await simulate('credit_authorization', card.id, 'credit_authorization', { amount: 700, currency: { code: 'USD' }, merchant: { descriptor: 'ACME MARKETPLACE', mcc: '5942', country: 'US' } }, 'CARD_TRANSACTION.AUTHORIZED');
    await simulate('clearing of the credit', card.id, 'clearing', { cardTransactionId: credit.cardTransactionId, amount: 700 }, 'CARD_TRANSACTION.SETTLED');
    await showBalance('credit authorization cleared (credited)', customer.id, { available: 5_500, total: 5_500 });
    await simulate('financial_credit_auth', card.id, 'financial_credit_authorization', { amount: 300, currency: { code: 'USD' }, merchant: { descriptor: 'ACME PAYOUTS', mcc: '6012', country: 'US' } }, 'CARD_TRANSACTION.SETTLED');
    await showBalance('financial credit (credited at once)', customer.id, { available: 5_800, total: 5_800 });
    await simulate('balance_inquiry', card.id, 'balance_inquiry', { merchant: { descriptor: 'SHELL OIL 12345678', mcc: '5541', country: 'US' } }, 'CARD_TRANSACTION.SETTLED');
    console.log(bold('\n9. Reveal the card: a single-use URL to a page with its PAN, CVV and expiry'));
    revealed = await revealCard(card);

    console.log(bold('\n10. Move money: a bank account of the business, a transfer in and a transfer out'));
    // The account number's last three digits steer the sandbox (002/003 fail at once, 004 rejected, 005 pending then failed); 000 completes.
    const bank = (
      await call('POST', '/customers/external-accounts', {
        customerId: customer.id,
        currency: 'USD',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789000', routingNumber: '021000021', bankAccountType: 'CHECKING', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme Robotics Inc.' } },
      })
    ).json;
    const transfer = async (step: string, path: string, body: unknown, type: string) => {
      const txn = (await call('POST', path, body)).json;
      const expected: (typeof transfers)[number] = { step, id: txn.id as string, type };
      transfers.push(expected);
      await poll(async () => (transfers.find((x) => x === expected)?.webhook ? true : undefined), 10_000);
      console.log(`   ${expected.webhook ? green('✓') : red('✗')} ${type} ${expected.webhook ? 'arrived verified both ways' : 'did not arrive'}`);
    };
    await transfer('transfer-in 2000', '/transfer-in', { source: { accountId: bank.id }, destination: { accountId: account.id }, amount: 2_000 }, 'INCOMING_PAYMENT.COMPLETED');
    await showBalance('transfer-in 2000 (credited)', customer.id, { available: 7_800, total: 7_800 });
    await transfer('transfer-out 1500', '/transfer-out', { source: { accountId: account.id }, destination: { accountId: bank.id }, amount: 1_500, remittanceInformation: 'INV-2041' }, 'OUTGOING_PAYMENT.COMPLETED');
    await showBalance('transfer-out 1500 (debited)', customer.id, { available: 6_300, total: 6_300 });
    await call('GET', `/transactions?customerId=${encodeURIComponent(customer.id)}&type=OUTGOING&limit=5`);

    console.log(bold('\n11. Pay across currencies: a quote from USD to a euro bank account, executed'));
    // An IBAN ending in 000 completes (the quote suffixes: 002 execution fails, 003 long, 004 delivery fails, 005 returned, 006 cancelled, 007 payout and refund fail).
    const euroBank = (
      await call('POST', '/customers/external-accounts', {
        customerId: customer.id,
        currency: 'EUR',
        accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE46370400440532000000', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme Robotics GmbH' } },
      })
    ).json;
    // Locked on the sending side: 1000 USD cents leave the account, the platform's fees (if its feeConfigs set any) within them.
    const quote = (
      await call('POST', '/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: account.id },
        destination: { destinationType: 'ACCOUNT', accountId: euroBank.id },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
        description: 'INV-2042',
      })
    ).json;
    const payment: (typeof transfers)[number] = { step: 'quote USD -> EUR', id: quote.transactionId as string, type: 'OUTGOING_PAYMENT.COMPLETED' };
    transfers.push(payment);
    await call('POST', `/quotes/${encodeURIComponent(quote.id)}/execute`);
    await poll(async () => (payment.webhook ? true : undefined), 10_000);
    console.log(`   ${payment.webhook ? green('✓') : red('✗')} OUTGOING_PAYMENT.COMPLETED ${payment.webhook ? `arrived verified both ways: ${quote.totalSendingAmount} USD cents sent, ${quote.totalReceivingAmount} EUR cents received` : 'did not arrive'}`);
    await showBalance('quote executed (debited)', customer.id, { available: 5_300, total: 5_300 });
    await call('GET', `/quotes/${encodeURIComponent(quote.id)}`);

    console.log(bold('\n12. The event log'));
    await call('GET', '/webhook-events?limit=10');
  } catch (err) {
    console.error(red(`\nThe demo stopped: ${err instanceof Error ? err.message : String(err)}`));
  } finally {
    await Promise.all(expectations.map((e) => waitForWebhook(e.token, 5_000)));
    await receiver.stop();
    await target.stop();
  }

  console.log(bold('\nSummary'));
  let ok = expectations.length === 12 && testWebhook?.verified === true && kybWebhook?.verified === true && fundingWebhook !== undefined && balanceChecks.length === 14 && revealed && transfers.length === 3;
  console.log(`  ${testWebhook?.verified ? green('✓') : red('✗')} ${'test webhook'.padEnd(24)} ${''.padEnd(40)} expected ${'TEST'.padEnd(26)} got ${testWebhook ? `${String(testWebhook.payload?.type)} ${testWebhook.verified ? 'verified both ways' : 'NOT verified'}` : 'no webhook'}`);
  console.log(`  ${kybWebhook?.verified ? green('✓') : red('✗')} ${'verification'.padEnd(24)} ${''.padEnd(40)} expected ${'CUSTOMER.KYB_APPROVED'.padEnd(26)} got ${kybWebhook ? `it, ${kybWebhook.verified ? 'verified both ways' : 'NOT verified'}` : 'no webhook'}`);
  console.log(`  ${fundingWebhook ? green('✓') : red('✗')} ${'funding'.padEnd(24)} ${''.padEnd(40)} expected ${'INTERNAL_ACCOUNT.BALANCE_UPDATED'.padEnd(26)} got ${fundingWebhook ? 'it, verified both ways' : 'no webhook'}`);
  console.log(`  ${revealed ? green('✓') : red('✗')} ${'card reveal'.padEnd(24)} ${''.padEnd(40)} expected a Luhn-valid PAN ending in last4, once; got ${revealed ? 'it' : 'something else'}`);
  for (const e of expectations) {
    const got = e.webhook;
    const good = got !== undefined && got.verified && got.payload?.type === e.type;
    ok &&= good;
    const detail = got ? `${String(got.payload?.type)} ${got.verified ? 'verified both ways' : 'NOT verified'} after ${got.receivedAt - e.calledAt} ms` : 'no webhook';
    console.log(`  ${good ? green('✓') : red('✗')} ${e.step.padEnd(24)} ${e.token.padEnd(40)} expected ${e.type.padEnd(26)} got ${detail}`);
  }
  for (const x of transfers) {
    ok &&= x.webhook !== undefined;
    console.log(`  ${x.webhook ? green('✓') : red('✗')} ${x.step.padEnd(24)} ${x.id.padEnd(40)} expected ${x.type.padEnd(26)} got ${x.webhook ? 'it, verified both ways' : 'no webhook'}`);
  }
  const wrongBalances = balanceChecks.filter((c) => c.got.available !== c.expected.available || c.got.total !== c.expected.total);
  if (wrongBalances.length > 0) ok = false;
  console.log(`  ${wrongBalances.length === 0 ? green('✓') : red('✗')} ${balanceChecks.length} balance checks, ${wrongBalances.length} differing from the ledger's arithmetic`);
  const unverified = receiver.deliveries.filter((d) => !d.verified).length;
  if (unverified > 0) ok = false;
  console.log(`  ${receiver.deliveries.length} deliveries received, ${unverified} failed verification (X-Grid-Signature and webhook-signature, each checked)`);
  console.log(
    ok
      ? green(bold('\nEvery expected webhook arrived, verified both ways, and every balance is what the ledger says.'))
      : red(bold('\nSome expected webhooks did not arrive verified both ways, or a balance differs from the ledger.')),
  );
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
