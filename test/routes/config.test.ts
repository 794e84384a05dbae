import { createPublicKey } from 'node:crypto';
import { Ajv } from 'ajv';
import { expect, it } from 'vitest';
import { PlatformConfigSchema } from '../../src/schemas/platform-config.js';
import { documentedConfigUpdate, everyConfigField } from '../fixtures/platform-config.js';
import { INTERNAL_SPELLINGS } from '../helpers/internal-targets.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

const checkConfig = new Ajv({ strict: false, validateFormats: false }).compile(PlatformConfigSchema);

async function config(caller: Caller, method: 'GET' | 'PATCH' = 'GET', body?: unknown) {
  const res = await caller.req(method, '/config', body);
  expect(res.statusCode, res.body).toBe(200);
  const out = res.json();
  expect(checkConfig(out), JSON.stringify(checkConfig.errors)).toBe(true);
  return out;
}

const fieldsOf = (body: { details: { errors: { field: string }[] } }) => body.details.errors.map((e) => e.field).sort();

describeEachEngine('platform configuration', (t) => {
  it('creates a whsec_ secret of at least 24 random bytes on first read, stable afterwards', async () => {
    const caller = await t.newCaller();
    const first = await caller.req('GET', '/config');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.id).toMatch(/^PlatformConfig:/);
    expect(body.webhookEndpoint).toBeUndefined();
    expect(body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(body.webhookSecret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect((await caller.req('GET', '/config')).json().webhookSecret).toBe(body.webhookSecret);
  });

  it('sets, keeps and clears the webhook endpoint', async () => {
    const caller = await t.newCaller();
    const set = await caller.req('PATCH', '/config', { webhookEndpoint: 'https://api.example.com/hooks?x=1' });
    expect(set.statusCode).toBe(200);
    expect(set.json().webhookEndpoint).toBe('https://api.example.com/hooks?x=1');
    expect((await caller.req('PATCH', '/config', {})).json().webhookEndpoint).toBe('https://api.example.com/hooks?x=1');
    expect((await caller.req('GET', '/config')).json().webhookEndpoint).toBe('https://api.example.com/hooks?x=1');
    const cleared = await caller.req('PATCH', '/config', { webhookEndpoint: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().webhookEndpoint).toBeUndefined();
  });

  it.each([
    ['not a url', 'format'],
    ['/relative/path', 'format'],
    ['ftp://example.com/hook', 'scheme'],
    ['mailto:ops@example.com', 'scheme'],
    ['https://user:pw@example.com/hook', 'credentials'],
    ['http://example.com:0/', 'port 0'],
    ['https://example.com:00/hook', 'port 0'],
    [`https://example.com/${'a'.repeat(2100)}`, 'length'],
    [42, 'type'],
  ])('refuses webhookEndpoint %j (%s) with INVALID_INPUT on the field', async (value, _why) => {
    const res = await t.caller.req('PATCH', '/config', { webhookEndpoint: value });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(body.details.errors.map((e: { field: string }) => e.field)).toEqual(['webhookEndpoint']);
  });

  it('refuses fields the update request does not define, at any depth, naming each', async () => {
    const res = await t.caller.req('PATCH', '/config', {
      webhookEndpoint: 'https://example.com/h',
      proxyUmaSubdomain: 'acme',
      isRegulatedFinancialInstitution: true,
      embeddedWalletConfig: { appName: 'A', theme: 'dark' },
      cardTokenization2faConfig: { sms: { sender: 'x' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      ['cardTokenization2faConfig.sms.sender', 'embeddedWalletConfig.theme', 'isRegulatedFinancialInstitution', 'proxyUmaSubdomain'].sort(),
    );
    const bad = await t.caller.req('PATCH', '/config', '{"webhookEndpoint":', { 'content-type': 'application/json' });
    expect(bad.json().code).toBe('INVALID_REQUEST_FORMAT');
  });

  it('rotates the secret and reports the previous one\'s window', async () => {
    const caller = await t.newCaller();
    const before = (await caller.req('GET', '/config')).json();
    expect(before.previousWebhookSecretExpiresAt).toBeUndefined();
    const rotated = await caller.req('POST', '/config/webhook-secret/rotate');
    expect(rotated.statusCode).toBe(200);
    const after = rotated.json();
    expect(after.webhookSecret).toMatch(/^whsec_/);
    expect(after.webhookSecret).not.toBe(before.webhookSecret);
    const expires = Date.parse(after.previousWebhookSecretExpiresAt);
    expect(expires - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('keeps each platform\'s configuration to itself', async () => {
    const a = await t.newCaller();
    const b = await t.newCaller();
    await a.req('PATCH', '/config', { webhookEndpoint: 'https://a.example.com/hooks' });
    const bConfig = (await b.req('GET', '/config')).json();
    expect(bConfig.webhookEndpoint).toBeUndefined();
    expect(bConfig.webhookSecret).not.toBe((await a.req('GET', '/config')).json().webhookSecret);
  });

  it('needs credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/2025-10-13/config' });
    expect(res.statusCode).toBe(401);
  });

  it("accepts the document's example update and returns what it set", async () => {
    const caller = await t.newCaller();
    const patched = await config(caller, 'PATCH', documentedConfigUpdate);
    expect(patched).toMatchObject(documentedConfigUpdate);
    expect(await config(caller)).toEqual(patched);
  });

  it('stores and returns every documented field, with the fields only the service sets', async () => {
    const caller = await t.newCaller();
    const before = await config(caller);
    expect(before).toMatchObject({ supportedCurrencies: [], feeConfigs: [], isRegulatedFinancialInstitution: false });
    for (const absent of ['umaDomain', 'webhookEndpoint', 'embeddedWalletConfig', 'cardTokenization2faConfig']) expect(before).not.toHaveProperty(absent);
    const patched = await config(caller, 'PATCH', everyConfigField);
    expect(patched).toEqual({
      ...everyConfigField,
      id: before.id,
      isRegulatedFinancialInstitution: false,
      webhookSecret: before.webhookSecret,
      webhookPublicKey: before.webhookPublicKey,
      createdAt: before.createdAt,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(patched.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    expect(await config(caller)).toEqual(patched);
  });

  it('leaves out fields unchanged, merges the settings objects field by field and replaces the currency list', async () => {
    const caller = await t.newCaller();
    await config(caller, 'PATCH', everyConfigField);
    const patched = await config(caller, 'PATCH', {
      embeddedWalletConfig: { appName: 'Renamed Wallet' },
      cardTokenization2faConfig: { email: { subject: 'New subject' } },
      supportedCurrencies: [everyConfigField.supportedCurrencies[1]],
    });
    expect(patched.embeddedWalletConfig).toEqual({ ...everyConfigField.embeddedWalletConfig, appName: 'Renamed Wallet' });
    expect(patched.cardTokenization2faConfig).toEqual({
      ...everyConfigField.cardTokenization2faConfig,
      email: { ...everyConfigField.cardTokenization2faConfig.email, subject: 'New subject' },
    });
    expect(patched.supportedCurrencies).toEqual([everyConfigField.supportedCurrencies[1]]);
    expect(patched).toMatchObject({ umaDomain: everyConfigField.umaDomain, webhookEndpoint: everyConfigField.webhookEndpoint, feeConfigs: everyConfigField.feeConfigs });
    expect((await config(caller, 'PATCH', {})).embeddedWalletConfig.appName).toBe('Renamed Wallet');
  });

  it('accepts the read-only provider fields of a currency and does not store them', async () => {
    const caller = await t.newCaller();
    const usd = { ...documentedConfigUpdate.supportedCurrencies[0], providerRequiredCustomerFields: ['NATIONALITY'], providerRequiredCounterpartyCustomerFields: ['FULL_NAME'] };
    const patched = await config(caller, 'PATCH', { supportedCurrencies: [usd] });
    expect(patched.supportedCurrencies).toEqual(documentedConfigUpdate.supportedCurrencies);
  });

  it('upserts fee configs by fee type and source currency, and removes one whose fees are both zero', async () => {
    const caller = await t.newCaller();
    const fee = (variableFeeBps: number, amount: number) => ({ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps, fixedFee: { amount, currency: 'USD' } });
    expect((await config(caller, 'PATCH', { feeConfigs: [fee(30, 25)] })).feeConfigs).toEqual([fee(30, 25)]);
    expect((await config(caller, 'PATCH', { feeConfigs: [fee(45, 0)] })).feeConfigs).toEqual([fee(45, 0)]);
    expect((await config(caller, 'PATCH', { umaDomain: 'x.example.com' })).feeConfigs).toEqual([fee(45, 0)]);
    expect((await config(caller, 'PATCH', { feeConfigs: [fee(0, 0)] })).feeConfigs).toEqual([]);
  });

  it('answers 501 NOT_IMPLEMENTED for a fee source currency other than USD, and changes nothing', async () => {
    const caller = await t.newCaller();
    const res = await caller.req('PATCH', '/config', {
      umaDomain: 'eur.example.com',
      feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'EUR', variableFeeBps: 10, fixedFee: { amount: 0, currency: 'EUR' } }],
    });
    expect(res.statusCode).toBe(501);
    expect(res.json()).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED', message: expect.stringContaining('EUR') });
    expect(await config(caller)).not.toHaveProperty('umaDomain');
  });

  it('reports every invalid field of the update in one 400', async () => {
    const caller = await t.newCaller();
    const res = await caller.req('PATCH', '/config', {
      umaDomain: 'not a domain!',
      supportedCurrencies: [{ currencyCode: 'usd', minAmount: -1, maxAmount: 1.5, enabledTransactionTypes: ['SIDEWAYS'] }],
      embeddedWalletConfig: { otpLength: 3, expirationSeconds: 86401, sendFromEmailAddress: 'nobody', logoUrl: 'ftp://x.example/logo.png' },
      cardTokenization2faConfig: { logoUrl: 'http://insecure.example/logo.png', sms: { templateSid: 'x'.repeat(65) } },
      feeConfigs: [{ feeType: 'FLAT', sourceCurrency: 'USD', variableFeeBps: 10001, fixedFee: { amount: 1 } }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(fieldsOf(res.json())).toEqual(
      [
        'umaDomain',
        'supportedCurrencies[0].currencyCode',
        'supportedCurrencies[0].minAmount',
        'supportedCurrencies[0].maxAmount',
        'supportedCurrencies[0].requiredCounterpartyFields',
        'supportedCurrencies[0].enabledTransactionTypes[0]',
        'embeddedWalletConfig.otpLength',
        'embeddedWalletConfig.expirationSeconds',
        'embeddedWalletConfig.sendFromEmailAddress',
        'embeddedWalletConfig.logoUrl',
        'cardTokenization2faConfig.logoUrl',
        'cardTokenization2faConfig.sms.templateSid',
        'feeConfigs[0].feeType',
        'feeConfigs[0].variableFeeBps',
        'feeConfigs[0].fixedFee.currency',
      ].sort(),
    );
  });

  it('refuses what the schema cannot say: min above max, a currency or counterparty field twice, a fee config twice', async () => {
    const caller = await t.newCaller();
    const usd = documentedConfigUpdate.supportedCurrencies[0]!;
    const fee = { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 1, fixedFee: { amount: 1, currency: 'USD' } };
    const res = await caller.req('PATCH', '/config', {
      webhookEndpoint: 'https://user:pw@example.com/hook',
      supportedCurrencies: [
        { ...usd, minAmount: 500, maxAmount: 499 },
        { ...usd, requiredCounterpartyFields: [{ name: 'EMAIL', mandatory: true }, { name: 'EMAIL', mandatory: false }] },
      ],
      feeConfigs: [fee, fee],
    });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res.json())).toEqual(
      ['webhookEndpoint', 'supportedCurrencies[0].maxAmount', 'supportedCurrencies[1].currencyCode', 'supportedCurrencies[1].requiredCounterpartyFields', 'feeConfigs[1]'].sort(),
    );
    expect(await config(caller)).toMatchObject({ supportedCurrencies: [], feeConfigs: [] });
  });

  it('publishes a P-256 public key (SPKI PEM) per platform, kept across secret rotations and updates', async () => {
    const a = await t.newCaller();
    const first = await config(a);
    expect(first.webhookPublicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
    const key = createPublicKey(first.webhookPublicKey);
    expect(key.asymmetricKeyType).toBe('ec');
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const rotated = (await a.req('POST', '/config/webhook-secret/rotate')).json();
    expect(rotated.webhookSecret).not.toBe(first.webhookSecret);
    expect(rotated.webhookPublicKey).toBe(first.webhookPublicKey);
    expect((await config(a, 'PATCH', { webhookEndpoint: 'https://a.example.com/h' })).webhookPublicKey).toBe(first.webhookPublicKey);
    expect((await config(await t.newCaller())).webhookPublicKey).not.toBe(first.webhookPublicKey);
  });

  it('gives a platform configured before key pairs existed its key pair on first read', async () => {
    const caller = await t.newCaller();
    const before = await config(caller);
    await t.services.store.db.updateTable('platform_webhook_config').set({ signing_private_key: null, signing_public_key: null }).where('platform_id', '=', caller.platformId).execute();
    const after = await config(caller);
    expect(after.webhookPublicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(after.webhookPublicKey).not.toBe(before.webhookPublicKey);
    expect(after.webhookSecret).toBe(before.webhookSecret);
    expect((await config(caller)).webhookPublicKey).toBe(after.webhookPublicKey);
  });

  it('takes an endpoint on this machine or its network: this test server is bound to loopback, so only its own machine can call it', async () => {
    for (const [spelling] of INTERNAL_SPELLINGS) {
      const res = await t.caller.req('PATCH', '/config', { webhookEndpoint: `http://${spelling}:8080/hooks` });
      expect(res.statusCode, spelling).toBe(200);
    }
  });
});
