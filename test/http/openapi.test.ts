import { Validator } from '@seriousme/openapi-schema-validator';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openServices } from '../../src/services.js';
import { drainCardJobs } from '../helpers/card-jobs.js';
import { catalogueCodes, expectErrorObject } from '../helpers/error-object.js';
import { activeCard, injectCall, insertTestCustomer, usdAccountOf } from '../helpers/fixtures.js';
import { eurAccount, ibanEndingIn, solanaAddress, usdAccount, walletAccount } from '../helpers/external-accounts.js';
import { activeFundedCard } from '../helpers/money.js';
import { multipartForm, type FormPart } from '../helpers/multipart.js';
import { businessCustomer, ownerInput } from '../helpers/owners.js';
import { BASE, basicAuth, describeEachEngine, type Caller, type TestApp } from '../helpers/test-app.js';
import { connectReceiver, produceEvent, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema?: { properties?: { status?: { enum?: number[] }; code?: { enum?: string[] } } } } } }>;
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
}
type Doc = { paths: Record<string, Record<string, Operation>>; servers: { url: string }[]; components: { securitySchemes: Record<string, unknown> } };

/** A request that succeeds: the route's own checks pass, so a variant fails only for what it changes. */
interface Valid {
  id?: string;
  query?: string;
  body?: () => Promise<unknown> | unknown;
  /** The status of the valid request when it is not a success: an operation no flow can make succeed (its documented 2xx is then never seen). */
  refused?: number;
}

const unknownIdLike = (id: string) => `${id.slice(0, id.indexOf(':'))}:0190ffff-0000-7000-8000-000000000000`;

describeEachEngine('OpenAPI document', (t) => {
  let doc: Doc;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    doc = (await t.app.inject({ url: `${BASE}/openapi.json` })).json();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect((doc as unknown as { openapi: string }).openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares the security schemes and the versioned server', () => {
    expect(doc.servers[0]!.url).toBe(BASE);
    expect(doc.components.securitySchemes.BasicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(doc.components.securitySchemes.AgentAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of Object.keys(doc.paths)) expect(path.startsWith(BASE), path).toBe(false);
  });

  it('gives each error response exactly the catalogue codes of its status', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
          const schema = response.content?.['application/json']?.schema;
          expect(schema?.properties?.status?.enum, `${method} ${path} ${status}`).toEqual([Number(status)]);
          expect([...(schema?.properties?.code?.enum ?? [])].sort(), `${method} ${path} ${status}`).toEqual(catalogueCodes(Number(status)).sort());
        }
      }
    }
  });

  it('documents every status each operation answers to failing requests of every kind', { timeout: 120_000 }, async () => {
    const valid = await validRequests(t, receiver);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op })));
    // A new operation needs a valid request here before this test can vouch for it.
    expect(Object.keys(valid).sort()).toEqual(operations.map((o) => o.key).sort());

    const production = await t.newCaller('production');
    const viewerToken = (await t.caller.req('POST', '/tokens', { name: 'viewer', permissions: ['VIEW'] })).json() as { clientId: string; clientSecret: string };
    const viewerAuth = basicAuth(viewerToken.clientId, viewerToken.clientSecret);
    // One address that has failed authentication past its burst: every operation answers its failures 429.
    const throttled = '192.0.2.77';
    for (let i = 0; i < 100; i++) await t.app.inject({ method: 'GET', url: `${BASE}/tokens`, remoteAddress: throttled });
    const broken = await brokenApp(t);
    const undocumented: string[] = [];
    const seen = new Map<string, Set<number>>();
    const check = (key: string, op: Operation, kind: string, res: LightMyRequestResponse, expected?: number) => {
      const label = `${key} (${kind}): ${res.statusCode} ${res.body.slice(0, 200)}`;
      if (expected !== undefined) expect(res.statusCode, label).toBe(expected);
      seen.get(key)!.add(res.statusCode);
      const documented = op.responses[String(res.statusCode)];
      if (!documented) return void undocumented.push(label);
      if (res.statusCode < 400) return;
      const body = expectErrorObject(res, label);
      expect(documented.content?.['application/json']?.schema?.properties?.code?.enum, label).toContain(body.code);
    };

    try {
      for (const { key, method, path, op } of operations) {
        seen.set(key, new Set());
        const v = valid[key]!;
        const url = (id = v.id, query = v.query) =>
          `${path.replace(/\{(id|accountId|customerId|verificationId|externalAccountId|quoteId|invitationCode|receiverUmaAddress|transactionId)\}/, encodeURIComponent(id ?? '')).replace('{sourceCurrency}/{destinationCurrency}', 'USD/MXN')}${query ? `?${query}` : ''}`;
        // A body of form parts is sent as multipart/form-data (the upload operations).
        const send = (caller: Caller, u: string, body?: unknown, headers?: Record<string, string>) => {
          const form = Array.isArray(body) ? multipartForm(body as FormPart[]) : undefined;
          return caller.req(method as InjectOptions['method'], u, form?.payload ?? body, { ...form?.headers, ...headers });
        };
        const body = async () => (v.body ? await v.body() : undefined);
        const json = { 'content-type': 'application/json' };

        const ok = await send(t.caller, url(), await body());
        if (v.refused === undefined) expect(ok.statusCode, `${key}: ${ok.body}`).toBeLessThan(300);
        else expect(ok.statusCode, `${key}: ${ok.body}`).toBe(v.refused);
        check(key, op, 'valid', ok);
        check(key, op, 'no credentials', await t.app.inject({ method: method as InjectOptions['method'], url: `${BASE}${url()}` }), 401);
        check(key, op, 'database down', await broken.inject(method, `${BASE}${url()}`, t.caller.auth), 500);
        check(key, op, 'production token', await send(production, url(), await body()));
        check(key, op, 'throttled address', await t.app.inject({ method: method as InjectOptions['method'], url: `${BASE}${url()}`, headers: { authorization: basicAuth('f'.repeat(32), 'wrong') }, remoteAddress: throttled }), 429);
        const viewerBody = await body();
        check(
          key,
          op,
          'VIEW token',
          await t.app.inject({ method: method as InjectOptions['method'], url: `${BASE}${url()}`, headers: { authorization: viewerAuth }, ...(viewerBody === undefined ? {} : { payload: viewerBody as object }) }),
          method === 'GET' ? undefined : 403,
        );
        check(key, op, 'unknown query parameter', await send(t.caller, url(v.id, v.query ? `${v.query}&zz=1` : 'zz=1'), await body()), op.parameters?.some((p) => p.in === 'query') ? 400 : undefined);
        // Every id the valid request names (path, query or body), swapped for an unknown one of the same type.
        const swap = (text: string) =>
          text
            .replace(/\b(Token|Customer|BeneficialOwner|Card|CardTransaction|Transaction|Webhook|InternalAccount|Verification|ExternalAccount|Document|Job|Quote):[0-9a-f-]{36}\b/g, (id) => unknownIdLike(id))
            // An invitation code, and a sandbox UMA address with a receiver.
            .replace(/^[0-9A-HJKMNP-TV-Z]{12}$/, 'ZZZZZZZZZZZZ')
            .replace(/^\$success\.usd@sandbox\.uma\.money$/, '$nobody@sandbox.uma.money')
            // A request id (the request log's) is a bare UUID v7.
            .replace(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, '00000000-0000-7000-8000-000000000000');
        const b = await body();
        const swapped = url(v.id && swap(v.id), v.query && swap(v.query));
        check(key, op, 'unknown ids', await send(t.caller, swapped, b === undefined ? undefined : JSON.parse(swap(JSON.stringify(b)))), v.id ? 404 : undefined);
        if (v.id) check(key, op, 'id too long', await send(t.caller, url('x'.repeat(150)), await body()), 400);
        check(key, op, 'malformed JSON', await send(t.caller, url(), '{"a": ', json), method === 'GET' ? undefined : 400);
        check(key, op, 'text body', await send(t.caller, url(), 'a=1', { 'content-type': 'text/plain' }), method === 'GET' ? undefined : 415);
        check(key, op, 'body over 1 MiB', await send(t.caller, url(), JSON.stringify({ a: 'x'.repeat(1024 * 1024) }), json), method === 'GET' ? undefined : 413);
        if (method === 'POST' || method === 'PATCH') check(key, op, 'Idempotency-Key of a running request', await whileKeyRuns(t, (k) => send(t.caller, url(), undefined, { 'idempotency-key': k })), 409);
        if (op.requestBody) {
          const b = await body();
          check(key, op, 'unknown field', await send(t.caller, url(), Array.isArray(b) ? [...b, { name: 'zz', value: '1' }] : { ...(b as object), zz: 1 }), 400);
        }
      }
      for (const [key, kind, expected, res] of await stateFailures(t)) {
        check(key, operations.find((o) => o.key === key)!.op, kind, await res, expected);
      }
    } finally {
      await broken.close();
    }
    expect(undocumented).toEqual([]);
    // Every documented status was seen, except the ones no request here can provoke.
    const unprovoked = operations.flatMap(({ key, op }) =>
      Object.keys(op.responses)
        .filter((s) => !seen.get(key)!.has(Number(s)) && !(valid[key]!.refused !== undefined && Number(s) < 300))
        .map((s) => `${key} ${s}`),
    );
    expect(unprovoked).toEqual([]);
  });

  it('marks each extension of this service with x-extension, types Error.status as an integer, and documents the Grid list parameters', () => {
    const d = doc as unknown as Record<string, any>;
    const ext = (x: unknown) => (x as Record<string, unknown>)['x-extension'];
    expect(ext(d.paths['/sandbox/cards/{id}/simulate/authorization_expiry'].post)).toEqual(expect.any(String));
    expect(ext(d.paths['/sandbox/customers/{customerId}/kyc'].post)).toEqual(expect.any(String));
    expect(ext(d.paths['/cards/{id}'].patch)).toBeUndefined();
    const update = d.paths['/cards/{id}'].patch.requestBody.content['application/json'].schema;
    expect(update.properties.state.enum).toEqual(['ACTIVE', 'FROZEN', 'CLOSED']);
    expect(update.properties.fundingSources).toMatchObject({ type: 'array', minItems: 1 });
    expect(d.paths['/cards'].post.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['cardholderId', 'form', 'fundingSources']));
    for (const [path, method] of [['/webhook-events', 'get'], ['/webhook-events/{id}', 'get'], ['/webhook-events/{id}/redeliver', 'post'], ['/webhook-events/recover', 'post'], ['/webhook-events/replay-missing', 'post'], ['/request-logs', 'get'], ['/request-logs/{id}', 'get'], ['/webhook-events/{id}/signed-delivery', 'post']] as const) {
      expect(ext(d.paths[path][method]), path).toEqual(expect.any(String));
    }
    for (const [path, method] of [['/cards', 'get'], ['/transactions', 'get'], ['/sandbox/cards/{id}/simulate/clearing', 'post']] as const) {
      expect(ext(d.paths[path][method]), path).toBeUndefined();
    }
    const transaction = d.paths['/transactions/{id}'].get.responses['200'].content['application/json'].schema;
    // IncomingTransaction, OutgoingTransaction or CardTransaction, told apart by type.
    expect(transaction.anyOf.map((s: any) => s.properties.type.const ?? s.properties.type.enum?.[0])).toEqual(['INCOMING', 'OUTGOING', 'CARD']);
    const txn = transaction.anyOf[2];
    expect(ext(txn.properties.operations)).toEqual(expect.any(String));
    expect(ext(txn.properties.status)).toContain('EXPIRED');
    expect(ext(txn.properties.merchant)).toBeUndefined();
    // The document's required fields (CardTransaction.accountId waits for internal accounts).
    expect(txn.required).toEqual(expect.arrayContaining(['type', 'id', 'status', 'direction', 'merchant', 'authorizedAmount', 'customerId', 'platformCustomerId', 'authorizedAt', 'createdAt', 'updatedAt']));
    const card = d.paths['/cards/{id}'].get.responses['200'].content['application/json'].schema;
    expect(card.required).toEqual(expect.arrayContaining(['id', 'cardholderId', 'state', 'form', 'fundingSources', 'createdAt', 'updatedAt']));
    const token = d.paths['/tokens/{id}'].get.responses['200'].content['application/json'].schema;
    expect(token.required).toEqual(expect.arrayContaining(['id', 'name', 'permissions', 'clientId', 'createdAt', 'updatedAt']));
    expect(ext(token.properties.environment)).toEqual(expect.any(String));
    const create = d.paths['/cards'].post.requestBody.content['application/json'].schema;
    expect(create.properties.threeDSecurePassword).toMatchObject({ type: 'string', writeOnly: true });
    expect(card.properties).not.toHaveProperty('threeDSecurePassword');
    const accepted = d.paths['/sandbox/cards/{id}/simulate/authorization'].post.responses['202'].content['application/json'].schema;
    expect(ext(accepted.properties.cardTransactionId)).toEqual(expect.any(String));
    expect(ext(accepted.properties.issuerTransactionToken)).toBeUndefined();
    const hook = d.webhooks['card-transaction'].post.requestBody.content['application/json'].schema;
    expect(ext(hook.properties.operation)).toEqual(expect.any(String));
    expect(ext(hook.properties.type)).toContain('CARD_TRANSACTION.EXPIRED');
    for (const [path, item] of Object.entries<Record<string, Operation>>(d.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
          expect((response.content!['application/json']!.schema!.properties!.status as { type?: string }).type, `${method} ${path} ${status}`).toBe('integer');
        }
      }
    }
    const params = (path: string) => (d.paths[path].get.parameters as { name: string; schema: Record<string, unknown> }[]);
    expect(params('/cards').map((p) => p.name).sort()).toEqual(['accountId', 'cardholderId', 'cursor', 'limit', 'platformCardId', 'sortOrder', 'state'].sort());
    expect(params('/transactions').map((p) => p.name).sort()).toEqual(
      ['accountIdentifier', 'cardId', 'cursor', 'customerId', 'endDate', 'limit', 'platformCustomerId', 'receiverAccountIdentifier', 'reference', 'senderAccountIdentifier', 'sortOrder', 'startDate', 'status', 'type'].sort(),
    );
    expect(params('/tokens').map((p) => p.name).sort()).toEqual(['createdAfter', 'createdBefore', 'cursor', 'limit', 'name', 'updatedAfter', 'updatedBefore'].sort());
    for (const path of ['/cards', '/transactions']) expect(params(path).find((p) => p.name === 'sortOrder')!.schema).toMatchObject({ enum: ['asc', 'desc'], default: 'desc' });
    expect(ext(params('/transactions').find((p) => p.name === 'cardId')!.schema)).toEqual(expect.any(String));
    expect(ext(params('/transactions').find((p) => p.name === 'customerId')!.schema)).toBeUndefined();
  });

  it('documents the delivered webhooks with both signatures, and the config with webhookPublicKey', async () => {
    const doc = (await t.app.inject({ url: `${BASE}/openapi.json` })).json();
    expect(doc.components.securitySchemes.WebhookSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Grid-Signature' });
    expect(Object.keys(doc.webhooks).sort()).toEqual(['bulk-upload', 'card-funding-source-change', 'card-state-change', 'card-transaction', 'customer-update', 'external-account-status', 'incoming-payment', 'internal-account-status', 'invitation-claimed', 'outgoing-payment', 'test-webhook', 'verification-update']);
    expect(doc.webhooks['card-state-change'].post.requestBody.content['application/json'].schema.properties.type).toMatchObject({ const: 'CARD.STATE_CHANGE' });
    expect(doc.webhooks['customer-update'].post.requestBody.content['application/json'].schema.properties.type.enum).toContain('CUSTOMER.KYB_APPROVED');
    for (const [name, item] of Object.entries<{ post: { security: unknown; parameters: { name: string; in: string }[]; requestBody: { content: Record<string, { schema: { required: string[] } }> }; responses: Record<string, unknown> } }>(doc.webhooks)) {
      const op = item.post;
      expect(op.security, name).toEqual([{ WebhookSignature: [] }]);
      expect(op.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual(['X-Grid-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);
      expect(op.requestBody.content['application/json']!.schema.required).toEqual(expect.arrayContaining(['id', 'type', 'timestamp', 'data']));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '409']));
    }
    expect(doc.webhooks['test-webhook'].post.requestBody.content['application/json'].schema.properties.type).toMatchObject({ const: 'TEST' });
    const config = doc.paths['/config'];
    const configSchema = config.get.responses['200'].content['application/json'].schema;
    expect(configSchema.required).toEqual(expect.arrayContaining(['webhookPublicKey', 'supportedCurrencies', 'feeConfigs']));
    // Left out for VIEW and TRANSACT tokens, and the document says so.
    expect(configSchema.required).not.toContain('webhookSecret');
    expect(configSchema.properties.webhookSecret.description).toMatch(/only to MANAGE tokens/);
    expect(Object.keys(config.patch.requestBody.content['application/json'].schema.properties).sort()).toEqual(
      ['cardTokenization2faConfig', 'embeddedWalletConfig', 'feeConfigs', 'sandboxAuthorizationTtlSeconds', 'supportedCurrencies', 'umaDomain', 'webhookEndpoint'].sort(),
    );
    expect(config.patch.responses['501'].content['application/json'].schema.properties.code.enum).toEqual(['NOT_IMPLEMENTED']);
    const test = doc.paths['/sandbox/webhooks/test'].post.responses['200'].content['application/json'].schema;
    expect(test.required).toEqual(expect.arrayContaining(['url', 'response_status']));
  });
});

let runningKeys = 0;

/** Sends a request with an Idempotency-Key that a request of the same token is still running with. */
async function whileKeyRuns(t: TestApp, send: (key: string) => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  const key = `running-${++runningKeys}`;
  const claim = await t.services.idempotencyKeys.claim(t.caller.tokenId, key, { method: 'POST', path: '/held-by-the-test', bodySha256: '' });
  expect(claim.outcome).toBe('started');
  try {
    return await send(key);
  } finally {
    if (claim.outcome === 'started') await claim.attempt.abandon();
  }
}

/** One valid request per operation, over fixtures made for it. */
async function validRequests(t: TestApp, receiver: WebhookReceiver): Promise<Record<string, Valid>> {
  const caller = t.caller;
  const created = async (method: InjectOptions['method'], url: string, body?: unknown) => {
    const res = await caller.req(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json();
  };
  await connectReceiver(caller, receiver);
  const token = (await created('POST', '/tokens', { name: 'fixture', permissions: ['VIEW'] })).id as string;
  const logged = (await caller.req('GET', '/tokens')).headers['x-request-id'] as string;
  const customer = (await created('POST', '/customers', businessCustomer())).id as string;
  const toDelete = (await created('POST', '/customers', businessCustomer())).id as string;
  const owner = (await created('POST', '/beneficial-owners', ownerInput(customer))).id as string;
  const { cardholderId: cardholder, cardId: card } = await activeFundedCard(t, caller);
  const cardholderAccount = await usdAccountOf(injectCall(caller), cardholder);
  const simulate = async (kind: string, body: unknown) => created('POST', `/sandbox/cards/${card}/simulate/${kind}`, body);
  const authorization = { amount: 1000, currency: { code: 'USD' }, merchant: { descriptor: 'CORNER SHOP' } };
  /** A new transaction of 1000 with the given operations accepted on it (not landed). */
  const transaction = async (...steps: [string, number?][]) => {
    const id = (await simulate('authorization', authorization)).cardTransactionId as string;
    for (const [kind, amount] of steps) await simulate(kind, amount === undefined ? { cardTransactionId: id } : { cardTransactionId: id, amount });
    return id;
  };
  const open = await transaction();
  const settled = await transaction(['clearing', 1000]);
  await drainCardJobs(t.services, t.app.log);
  const event = await produceEvent(t, caller);
  const revocable = async () => (await created('POST', '/tokens', { name: 'to revoke', permissions: ['VIEW'] })).id as string;
  const revoked = await revocable();
  const account = (await created('GET', `/customers/internal-accounts?customerId=${customer}`)).data[0].id as string;
  const verification = (await created('POST', '/verifications', { customerId: (await created('POST', '/customers', businessCustomer())).id })).id as string;
  let accountNumbers = 0;
  const usd = () => usdAccount(`4242${String(++accountNumbers).padStart(6, '0')}`);
  const external = (await created('POST', '/customers/external-accounts', { customerId: customer, ...usd() })).id as string;
  const externalToDelete = (await created('POST', '/customers/external-accounts', { customerId: customer, ...usd() })).id as string;
  const wallet = (await created('POST', '/customers/external-accounts', { customerId: customer, ...walletAccount() })).id as string;
  const platformExternal = (await created('POST', '/platform/external-accounts', usd())).id as string;
  const platformToDelete = (await created('POST', '/platform/external-accounts', usd())).id as string;
  const platformWallet = (await created('POST', '/platform/external-accounts', walletAccount('SOLANA_WALLET', solanaAddress()))).id as string;
  /** A verify body, after a new WALLET_SIGNATURE challenge (refused once the wallet is ACTIVE, which only the first, valid, request needs). */
  const signed = (family: string, id: string) => async () => {
    await caller.req('POST', `/${family}/external-accounts/${id}/challenge`, { method: 'WALLET_SIGNATURE' });
    return { signature: '0x52d75f01c9e7' };
  };
  const documentForm = (holder?: string): FormPart[] => [
    ...(holder ? [{ name: 'documentHolder', value: holder }] : []),
    { name: 'documentType', value: 'CERTIFICATE_OF_INCORPORATION' },
    { name: 'country', value: 'US' },
    { name: 'file', filename: 'certificate.pdf', contentType: 'application/pdf', data: '%PDF-1.7 certificate' },
  ];
  const uploaded = async () => {
    const form = multipartForm(documentForm(customer));
    const res = await caller.req('POST', '/documents', form.payload, form.headers);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  };
  const csvForm = (): FormPart[] => [{ name: 'file', filename: 'customers.csv', contentType: 'text/csv', data: 'customerType,fullName\r\nINDIVIDUAL,Ada Lovelace\r\n' }];
  const csv = multipartForm(csvForm());
  const importJob = (await caller.req('POST', '/customers/bulk/csv', csv.payload, csv.headers)).json<{ jobId: string }>().jobId;
  const document = await uploaded();
  const documentToDelete = await uploaded();

  // European Economic Area individuals: one takes the sends, the other the confirms (each send of its own before).
  const eu = { customerType: 'INDIVIDUAL', region: 'DE', email: 'e@example.de', phoneNumber: '+4915112345678' };
  const sends = (await created('POST', '/customers', eu)).id as string;
  const confirms = (await created('POST', '/customers', eu)).id as string;
  const confirmBody = (channel: string) => async () => {
    await caller.req('POST', `/customers/${confirms}/verify-${channel}`);
    return { code: '123456' };
  };

  // Quotes, invitations and the crypto withdrawal estimate: a BTC account, an invitation per state-changing operation.
  await created('PATCH', '/config', { supportedCurrencies: ['USD', 'BTC'].map((code) => ({ currencyCode: code, minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [] })) });
  const btcHolder = await created('POST', '/customers', { customerType: 'INDIVIDUAL', currencies: ['BTC'] });
  const btcAccount = (await created('GET', `/customers/internal-accounts?customerId=${btcHolder.id}&currency=BTC`)).data[0].id as string;
  const quoteBody = () => ({ source: { sourceType: 'ACCOUNT', accountId: account }, destination: { destinationType: 'ACCOUNT', accountId: external }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000 });
  const quote = (await created('POST', '/quotes', { ...quoteBody(), destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money' } })).id as string;
  const invitation = async () => (await created('POST', '/invitations', { inviterUma: btcHolder.umaAddress })).code as string;
  const [shown, toClaim, toCancel] = [await invitation(), await invitation(), await invitation()];
  // Transfers of the funded cardholder: to and from a bank account ending in 005, which stays PENDING (no worker runs here).
  const payee = (await created('POST', '/customers/external-accounts', { customerId: cardholder, ...usdAccount('8642005') })).id as string;
  const transfer = async () => (await created('POST', '/transfer-out', { source: { accountId: cardholderAccount }, destination: { accountId: payee }, amount: 1 })).id as string;
  const transferred = await transfer();
  // A quote of the funded cardholder to a euro account, executed by the valid request (no worker runs here: it stays PROCESSING).
  const euroPayee = (await created('POST', '/customers/external-accounts', { customerId: cardholder, ...eurAccount(ibanEndingIn('000')) })).id as string;
  const realtime = (await created('POST', '/quotes', { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: cardholder }, destination: { destinationType: 'ACCOUNT', accountId: euroPayee }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 })).id as string;
  const executable = (await created('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: cardholderAccount }, destination: { destinationType: 'ACCOUNT', accountId: euroPayee }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_000 })).id as string;
  const transferToCancel = await transfer();

  return {
    'GET /exchange-rates': { query: 'sourceCurrency=USD&destinationCurrency=EUR' },
    'PUT /sandbox/exchange-rates/{sourceCurrency}/{destinationCurrency}': { body: () => ({ exchangeRate: '0.05' }) },
    'POST /quotes': { body: () => ({ ...quoteBody(), destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.money' } }) },
    'GET /quotes/{quoteId}': { id: quote },
    'POST /quotes/{quoteId}/execute': { id: executable },
    'POST /sandbox/send': { body: () => ({ quoteId: realtime, currencyCode: 'USD' }) },
    'POST /sandbox/uma/receive': { body: () => ({ senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: cardholder, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 }) },
    'GET /receiver/uma/{receiverUmaAddress}': { id: '$success.usd@sandbox.uma.money', query: 'senderUmaAddress=%24me%40uma.example.com' },
    'GET /receiver/external-account/{accountId}': { id: external },
    'POST /invitations': { body: () => ({ inviterUma: btcHolder.umaAddress, firstName: 'Ada' }) },
    'GET /invitations/{invitationCode}': { id: shown },
    'POST /invitations/{invitationCode}/claim': { id: toClaim, body: () => ({ inviteeUma: '$friend@wallet.example' }) },
    'POST /invitations/{invitationCode}/cancel': { id: toCancel },
    'GET /uma-providers': { query: 'currencyCode=USD' },
    'GET /discoveries': { query: 'country=PH' },
    'GET /vasps': { query: 'limit=2' },
    'POST /crypto/estimate-withdrawal-fee': { body: () => ({ internalAccountId: btcAccount, currency: 'BTC', cryptoNetwork: 'BITCOIN', amount: 100_000, destinationAddress: 'tb1qexample' }) },
    'POST /transfer-in': { body: () => ({ source: { accountId: payee }, destination: { accountId: cardholderAccount }, amount: 1 }) },
    'POST /transfer-out': { body: () => ({ source: { accountId: cardholderAccount }, destination: { accountId: payee, paymentRail: 'ACH' }, amount: 1, remittanceInformation: 'INV-1' }) },
    'POST /transactions/{transactionId}/confirm': { id: transferred, body: () => ({ receiptDeliveryConfirmedAt: '2025-08-15T14:31:00Z' }) },
    'POST /transactions/{transactionId}/approve': { id: transferred, body: () => ({}), refused: 409 },
    'POST /transactions/{transactionId}/reject': { id: transferred, body: () => ({ reason: 'RESTRICTED_JURISDICTION' }), refused: 409 },
    'POST /transactions/{transactionId}/cancel': { id: transferToCancel, body: () => ({ reason: 'REQUESTED_AFTER_HOURS' }) },
    'GET /customers/external-accounts': { query: `customerId=${customer}&currency=USD` },
    'POST /customers/external-accounts': { body: () => ({ customerId: customer, ...usd() }) },
    'GET /customers/external-accounts/{externalAccountId}': { id: external },
    'DELETE /customers/external-accounts/{externalAccountId}': { id: externalToDelete },
    'POST /customers/external-accounts/{externalAccountId}/challenge': { id: wallet, body: () => ({ method: 'LIVENESS' }) },
    'POST /customers/external-accounts/{externalAccountId}/verify': { id: wallet, body: signed('customers', wallet) },
    'GET /platform/external-accounts': { query: 'currency=USD' },
    'POST /platform/external-accounts': { body: () => usd() },
    'GET /platform/external-accounts/{externalAccountId}': { id: platformExternal },
    'DELETE /platform/external-accounts/{externalAccountId}': { id: platformToDelete },
    'POST /platform/external-accounts/{externalAccountId}/challenge': { id: platformWallet, body: () => ({ method: 'WALLET_SIGNATURE' }) },
    'POST /platform/external-accounts/{externalAccountId}/verify': { id: platformWallet, body: signed('platform', platformWallet) },
    'GET /customers/end-user-terms': {},
    'POST /customers/{customerId}/verify-email': { id: sends },
    'POST /customers/{customerId}/verify-phone': { id: sends },
    'POST /customers/{customerId}/verify-email/confirm': { id: confirms, body: confirmBody('email') },
    'POST /customers/{customerId}/verify-phone/confirm': { id: confirms, body: confirmBody('phone') },
    'POST /customers/{customerId}/kyc-link': { id: customer, body: () => ({ redirectUri: 'https://app.example.com/done' }) },
    'POST /tokens': { body: () => ({ name: 'another', permissions: ['VIEW'] }) },
    'GET /tokens': { query: 'limit=5' },
    'GET /tokens/{id}': { id: token },
    'DELETE /tokens/{id}': { id: revoked },
    'POST /customers': { body: () => businessCustomer() },
    'GET /customers': { query: 'customerType=BUSINESS' },
    'GET /customers/{id}': { id: customer },
    'PATCH /customers/{id}': { id: customer, body: () => ({ customerType: 'BUSINESS', businessInfo: { doingBusinessAs: 'Acme' } }) },
    'DELETE /customers/{id}': { id: toDelete },
    'GET /customers/internal-accounts': { query: `customerId=${customer}&currency=USD&type=INTERNAL_FIAT` },
    'GET /platform/internal-accounts': { query: 'currency=USD&type=INTERNAL_FIAT' },
    'POST /sandbox/internal-accounts/{accountId}/fund': { id: account, body: () => ({ amount: 100 }) },
    'POST /beneficial-owners': { body: () => ownerInput(customer) },
    'GET /beneficial-owners': { query: `customerId=${customer}` },
    'GET /beneficial-owners/{id}': { id: owner },
    'PATCH /beneficial-owners/{id}': { id: owner, body: () => ({ ownershipPercentage: 30 }) },
    'POST /cards': { body: () => ({ cardholderId: cardholder, form: 'VIRTUAL', fundingSources: [cardholderAccount] }) },
    'PATCH /cards/{id}': { id: card, body: () => ({ fundingSources: [cardholderAccount] }) },
    'POST /sandbox/customers/{customerId}/kyc': { id: customer, body: () => ({ status: 'APPROVED' }) },
    'POST /verifications': { body: async () => ({ customerId: (await created('POST', '/customers', businessCustomer())).id }) },
    'GET /verifications': { query: `customerId=${customer}` },
    'GET /verifications/{verificationId}': { id: verification },
    'GET /cards': { query: `cardholderId=${cardholder}` },
    'GET /cards/{id}': { id: card },
    'POST /cards/{id}/reveal': { id: card },
    'GET /transactions': { query: `cardId=${card}` },
    'GET /transactions/{id}': { id: open },
    'POST /sandbox/cards/{id}/simulate/authorization': { id: card, body: () => authorization },
    'GET /sandbox/clock': {},
    'POST /sandbox/clock/advance': { body: () => ({ seconds: 60 }) },
    'POST /sandbox/cards/{id}/simulate/clearing': { id: card, body: () => ({ cardTransactionId: open, amount: 1 }) },
    'POST /sandbox/cards/{id}/simulate/return': { id: card, body: () => ({ cardTransactionId: settled, amount: 1 }) },
    'POST /sandbox/cards/{id}/simulate/authorization_expiry': { id: card, body: async () => ({ cardTransactionId: await transaction() }) },
    'POST /sandbox/cards/{id}/simulate/return_reversal': { id: card, body: async () => ({ cardTransactionId: await transaction(['clearing', 1000], ['return', 1000]) }) },
    'POST /sandbox/cards/{id}/simulate/authorization_advice': { id: card, body: async () => ({ cardTransactionId: await transaction(), amount: 1500 }) },
    'POST /sandbox/cards/{id}/simulate/balance_inquiry': { id: card, body: () => ({ merchant: authorization.merchant }) },
    'POST /sandbox/cards/{id}/simulate/credit_authorization': { id: card, body: () => authorization },
    'POST /sandbox/cards/{id}/simulate/credit_authorization_advice': { id: card, body: () => authorization },
    'POST /sandbox/cards/{id}/simulate/financial_authorization': { id: card, body: () => authorization },
    'POST /sandbox/cards/{id}/simulate/financial_credit_authorization': { id: card, body: () => authorization },
    'POST /customers/bulk/csv': { body: () => csvForm() },
    'GET /customers/bulk/jobs/{id}': { id: importJob },
    'POST /documents': { body: () => documentForm(customer) },
    'GET /documents': { query: `documentHolder=${customer}` },
    'GET /documents/{id}': { id: document },
    'PUT /documents/{id}': { id: document, body: () => documentForm() },
    'DELETE /documents/{id}': { id: documentToDelete },
    'GET /config': {},
    'PATCH /config': { body: () => ({ webhookEndpoint: receiver.url }) },
    'POST /config/webhook-secret/rotate': {},
    'GET /webhook-events': { query: 'deliveryState=PENDING' },
    'GET /webhook-events/{id}': { id: event },
    'POST /webhook-events/{id}/redeliver': { id: event },
    'POST /webhook-events/recover': { body: () => ({ since: '2025-01-01T00:00:00Z' }) },
    'GET /request-logs': { query: 'method=GET&status=200' },
    'POST /webhook-events/{id}/signed-delivery': { id: event },
    'GET /request-logs/{id}': { id: logged },
    'POST /webhook-events/replay-missing': { body: () => ({ since: '2025-01-01T00:00:00Z' }) },
    // The rotations above changed the secret: the receiver learns the current one.
    'POST /sandbox/webhooks/test': { body: async () => void receiver.trust(await created('GET', '/config')) },
  };
}

/** Failures that depend on state rather than on the request's form: 409s, amounts, missing or failing endpoints. */
async function stateFailures(t: TestApp): Promise<[string, string, number, Promise<LightMyRequestResponse>][]> {
  const caller = await t.newCaller();
  const { cardholderId: holder, cardId: card } = await activeFundedCard(t, caller);
  const closed = (await activeCard(t, caller, holder)).id as string;
  await caller.req('PATCH', `/cards/${closed}`, { state: 'CLOSED' });
  const unapproved = await insertTestCustomer(t, caller);
  const unapprovedAccount = await usdAccountOf(injectCall(caller), unapproved);
  const sim = (kind: string, body: unknown) => caller.req('POST', `/sandbox/cards/${card}/simulate/${kind}`, body);
  const open = (await sim('authorization', { amount: 1000, currency: { code: 'USD' }, merchant: { descriptor: 'X' } })).json().cardTransactionId as string;
  const expired = (await sim('authorization', { amount: 1000, currency: { code: 'USD' }, merchant: { descriptor: 'X' } })).json().cardTransactionId as string;
  await sim('authorization_expiry', { cardTransactionId: expired });
  const partly = (await sim('authorization', { amount: 1000, currency: { code: 'USD' }, merchant: { descriptor: 'X' } })).json().cardTransactionId as string;
  await sim('clearing', { cardTransactionId: partly, amount: 100 });
  const event = await produceEvent(t, caller);
  const op = (kind: string) => `POST /sandbox/cards/{id}/simulate/${kind}`;
  const taken = (await caller.req('POST', '/customers', { ...businessCustomer(), umaAddress: '$taken@uma.example.com' })).json().id as string;
  const deleted = (await caller.req('POST', '/customers', businessCustomer())).json().id as string;
  await caller.req('DELETE', `/customers/${deleted}`);
  const platformCustomerId = (await caller.req('GET', `/customers/${taken}`)).json().platformCustomerId as string;
  const bank = (await caller.req('POST', '/customers/external-accounts', { customerId: holder, ...usdAccount('2468013') })).json().id as string;
  const platformBank = (await caller.req('POST', '/platform/external-accounts', usdAccount('2468013'))).json().id as string;
  const wallet = (await caller.req('POST', '/customers/external-accounts', { customerId: holder, ...walletAccount() })).json().id as string;
  const ea = (family: string) => `POST /${family}/external-accounts`;
  const holderAccount = await usdAccountOf(injectCall(caller), holder);
  const quoteTo = (umaAddress: string) => ({ source: { sourceType: 'ACCOUNT', accountId: holderAccount }, destination: { destinationType: 'UMA_ADDRESS', umaAddress }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000 });
  const deletedHolderForm = multipartForm([
    { name: 'documentHolder', value: deleted },
    { name: 'documentType', value: 'PASSPORT' },
    { name: 'country', value: 'US' },
    { name: 'file', filename: 'p.pdf', data: '%PDF-1.7' },
  ]);
  const externalAccountStates: [string, string, number, Promise<LightMyRequestResponse>][] = [
    [ea('customers'), 'the same account twice', 409, caller.req('POST', '/customers/external-accounts', { customerId: holder, ...usdAccount('2468013') })],
    [ea('platform'), 'the same account twice', 409, caller.req('POST', '/platform/external-accounts', usdAccount('2468013'))],
    [ea('customers'), 'an identifier ending in 105', 400, caller.req('POST', '/customers/external-accounts', { customerId: holder, ...usdAccount('2468105') })],
    [ea('platform'), 'an identifier ending in 105', 400, caller.req('POST', '/platform/external-accounts', usdAccount('2468105'))],
    [`${ea('customers')}/{externalAccountId}/challenge`, 'a bank account', 409, caller.req('POST', `/customers/external-accounts/${bank}/challenge`, { method: 'LIVENESS' })],
    [`${ea('platform')}/{externalAccountId}/challenge`, 'a bank account', 409, caller.req('POST', `/platform/external-accounts/${platformBank}/challenge`, { method: 'LIVENESS' })],
    [`${ea('customers')}/{externalAccountId}/verify`, 'no challenge outstanding', 409, caller.req('POST', `/customers/external-accounts/${wallet}/verify`, { signature: 'x' })],
    [`${ea('platform')}/{externalAccountId}/verify`, 'no challenge outstanding', 409, caller.req('POST', `/platform/external-accounts/${platformBank}/verify`, { signature: 'x' })],
  ];
  const pendingContact = (await caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', region: 'FR', email: 'p@example.fr' })).json().id as string;
  const contactStates: [string, string, number, Promise<LightMyRequestResponse>][] = ['email', 'phone'].flatMap((channel) => [
    [`POST /customers/{customerId}/verify-${channel}`, 'customer needing no contact verification', 409, caller.req('POST', `/customers/${holder}/verify-${channel}`)],
    [`POST /customers/{customerId}/verify-${channel}`, 'deleted customer', 410, caller.req('POST', `/customers/${deleted}/verify-${channel}`)],
    [`POST /customers/{customerId}/verify-${channel}/confirm`, 'customer needing no contact verification', 409, caller.req('POST', `/customers/${holder}/verify-${channel}/confirm`, { code: '123456' })],
    [`POST /customers/{customerId}/verify-${channel}/confirm`, 'deleted customer', 410, caller.req('POST', `/customers/${deleted}/verify-${channel}/confirm`, { code: '123456' })],
  ]);
  await drainCardJobs(t.services, t.app.log);
  const payee = (await caller.req('POST', '/customers/external-accounts', { customerId: holder, ...usdAccount('8642003') })).json().id as string;
  const failed = (await caller.req('POST', '/transfer-out', { source: { accountId: holderAccount }, destination: { accountId: payee }, amount: 1 })).json().id as string;
  // The holder's own UMA address in USD is its own USD account: a quote from that account pays itself.
  const holderUma = (await caller.req('GET', `/customers/${holder}`)).json().umaAddress as string;
  const transferStates: [string, string, number, Promise<LightMyRequestResponse>][] = [
    ['POST /transactions/{transactionId}/cancel', 'a FAILED transfer', 409, caller.req('POST', `/transactions/${failed}/cancel`)],
    ['POST /transactions/{transactionId}/cancel', 'a card transaction', 400, caller.req('POST', `/transactions/${open}/cancel`)],
    ['POST /transactions/{transactionId}/confirm', 'a card transaction', 400, caller.req('POST', `/transactions/${open}/confirm`)],
    ['POST /transfer-out', 'a wallet awaiting its ownership verification', 400, caller.req('POST', '/transfer-out', { source: { accountId: holderAccount }, destination: { accountId: wallet }, amount: 1 })],
  ];
  return [
    ...externalAccountStates,
    ...transferStates,
    ...contactStates,
    ['POST /customers/{customerId}/kyc-link', 'contact verification pending', 409, caller.req('POST', `/customers/${pendingContact}/kyc-link`)],
    ['POST /customers/{customerId}/kyc-link', 'deleted customer', 410, caller.req('POST', `/customers/${deleted}/kyc-link`)],
    ['POST /customers', 'platformCustomerId of an active customer', 409, caller.req('POST', '/customers', { ...businessCustomer(), platformCustomerId })],
    ['POST /customers', 'malformed UMA address', 400, caller.req('POST', '/customers', { ...businessCustomer(), umaAddress: 'taken' })],
    ['PATCH /customers/{id}', 'UMA address of another customer', 409, caller.req('PATCH', `/customers/${holder}`, { customerType: 'BUSINESS', umaAddress: '$taken@uma.example.com' })],
    ['PATCH /customers/{id}', 'deleted customer', 410, caller.req('PATCH', `/customers/${deleted}`, { customerType: 'BUSINESS' })],
    ['DELETE /customers/{id}', 'deleted customer', 410, caller.req('DELETE', `/customers/${deleted}`)],
    ['POST /beneficial-owners', 'deleted customer', 410, caller.req('POST', '/beneficial-owners', ownerInput(deleted))],
    ['POST /documents', 'deleted customer', 410, caller.req('POST', '/documents', deletedHolderForm.payload, deletedHolderForm.headers)],
    ['POST /sandbox/customers/{customerId}/kyc', 'deleted customer', 410, caller.req('POST', `/sandbox/customers/${deleted}/kyc`, { status: 'APPROVED' })],
    ['POST /verifications', 'deleted customer', 410, caller.req('POST', '/verifications', { customerId: deleted })],
    ['POST /verifications', 'customer already APPROVED', 400, caller.req('POST', '/verifications', { customerId: holder })],
    ['POST /cards', 'cardholder not approved', 400, caller.req('POST', '/cards', { cardholderId: unapproved, form: 'VIRTUAL', fundingSources: [unapprovedAccount] })],
    ['PATCH /cards/{id}', "another customer's funding source", 400, caller.req('PATCH', `/cards/${card}`, { fundingSources: [unapprovedAccount] })],
    ['PATCH /cards/{id}', 'unfreezing an ACTIVE card', 409, caller.req('PATCH', `/cards/${card}`, { state: 'ACTIVE' })],
    ['PATCH /cards/{id}', 'closing a CLOSED card', 409, caller.req('PATCH', `/cards/${closed}`, { state: 'CLOSED' })],
    [op('clearing'), 'expired transaction', 409, sim('clearing', { cardTransactionId: expired, amount: 1 })],
    [op('clearing'), 'a clearing of amount 0 on a partly settled transaction', 409, sim('clearing', { cardTransactionId: partly, amount: 0 })],
    [op('return'), 'amount above the net settled amount', 400, sim('return', { cardTransactionId: partly, amount: 5000 })],
    [op('return'), 'nothing settled', 409, sim('return', { cardTransactionId: open, amount: 1 })],
    [op('authorization_expiry'), 'expired transaction', 409, sim('authorization_expiry', { cardTransactionId: expired })],
    [op('return_reversal'), 'nothing returned', 409, sim('return_reversal', { cardTransactionId: open })],
    [op('authorization_advice'), 'expired transaction', 409, sim('authorization_advice', { cardTransactionId: expired, amount: 1 })],
    [op('authorization_advice'), 'a new total below the settled amount', 400, sim('authorization_advice', { cardTransactionId: partly, amount: 50 })],
    ['POST /sandbox/webhooks/test', 'no endpoint', 400, caller.req('POST', '/sandbox/webhooks/test')],
    ['POST /webhook-events/{id}/redeliver', 'no endpoint', 400, caller.req('POST', `/webhook-events/${event}/redeliver`)],
    ['POST /webhook-events/recover', 'no endpoint', 400, caller.req('POST', '/webhook-events/recover', { since: '2025-01-01T00:00:00Z' })],
    ['POST /webhook-events/replay-missing', 'no endpoint', 400, caller.req('POST', '/webhook-events/replay-missing', { since: '2025-01-01T00:00:00Z' })],
    ['POST /quotes', 'a UMA address with no receiver', 404, caller.req('POST', '/quotes', { ...quoteTo('$nobody@sandbox.uma.money') })],
    ['POST /quotes', 'a quote paying its own source account', 400, caller.req('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: holderAccount }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: holderUma, currency: 'USD' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000, immediatelyExecute: true })],
    [
      'PATCH /config',
      'a fee source currency the interface does not implement',
      501,
      caller.req('PATCH', '/config', { feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'EUR', variableFeeBps: 1, fixedFee: { amount: 0, currency: 'EUR' } }] }),
    ],
  ];
}

/** The same app over a store that has been closed: every operation meets a failing database. */
async function brokenApp(t: TestApp) {
  const services = await openServices(loadConfig({ ...t.db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent' }));
  const app = await buildApp(services);
  await services.store.close();
  return {
    inject: (method: string, url: string, authorization: string) => app.inject({ method: method as InjectOptions['method'], url, headers: { authorization } }),
    close: () => app.close(),
  };
}
