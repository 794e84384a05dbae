import { expect, it } from 'vitest';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { activeCard, insertTestCustomer } from '../helpers/fixtures.js';
import { drainCardJobs, provisionCards } from '../helpers/card-jobs.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { ConsoleClient, textOf } from './console-client.js';

const BUSINESS = {
  'businessInfo.legalName': 'Acme Robotics Inc.',
  'businessInfo.incorporatedOn': '2015-03-02',
  'businessInfo.taxId': '12-3456789',
  'businessInfo.entityType': 'CORPORATION',
  'businessInfo.registrationNumber': 'C4815162',
  email: 'finance@acme.example',
  'address.line1': '100 Market St',
  'address.city': 'San Francisco',
  'address.postalCode': '94105',
  'address.country': 'US',
};

const OWNER = {
  'personalInfo.firstName': 'Ada',
  'personalInfo.lastName': 'Lovelace',
  'personalInfo.birthDate': '1980-01-10',
  'personalInfo.nationality': 'GB',
  'personalInfo.address.line1': '1 Main St',
  'personalInfo.address.postalCode': '94105',
  'personalInfo.address.country': 'US',
  'personalInfo.idType': 'SSN',
  'personalInfo.identifier': '123-45-6780',
  roles: 'UBO',
  ownershipPercentage: '40',
};

/** The new resource's id a create form redirected to. */
const createdId = (location: unknown, prefix: string) => decodeURIComponent(new URL(String(location), 'http://console').pathname.slice(prefix.length));

describeEachEngine('console forms that create', (t) => {
  const signedIn = async (caller: Pick<Caller, 'clientId' | 'clientSecret'>) => {
    const browser = new ConsoleClient(t.app);
    await browser.signIn(caller.clientId, caller.clientSecret);
    return browser;
  };
  const business = async (browser: ConsoleClient, registrationNumber = 'C4815162') => {
    await browser.get('/console/customers');
    const res = await browser.post('/console/customers/new/BUSINESS', { ...BUSINESS, 'businessInfo.registrationNumber': registrationNumber });
    expect(res.statusCode, textOf(res.body)).toBe(303);
    return createdId(res.headers.location, '/console/customers/');
  };

  it('creates a business and an individual customer through the same service as POST /customers: the sandbox KYC suffix applies, and the form is in the request log', async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    const page = await browser.get('/console/customers');
    expect(page.body).toMatch(/<label for="new-business-businessInfo-legalName">Legal name<\/label>\s*<input id="new-business-businessInfo-legalName" name="businessInfo.legalName"/);
    const id = await business(browser);
    const api = (await platform.req('GET', `/customers/${encodeURIComponent(id)}`)).json();
    expect(api).toMatchObject({ customerType: 'BUSINESS', kybStatus: 'UNVERIFIED', email: 'finance@acme.example', businessInfo: { legalName: 'Acme Robotics Inc.', registrationNumber: 'C4815162', entityType: 'CORPORATION' }, address: { city: 'San Francisco' } });
    expect(textOf((await browser.get(`/console/customers/${id}?created=1`)).body)).toContain('Customer created: kybStatus UNVERIFIED.');

    await browser.get('/console/customers');
    const rejected = await browser.post('/console/customers/new/INDIVIDUAL', { fullName: 'Pat Doe 002', platformCustomerId: 'console-pat' });
    expect(rejected.statusCode).toBe(303);
    const pat = (await platform.req('GET', `/customers/${encodeURIComponent(createdId(rejected.headers.location, '/console/customers/'))}`)).json();
    expect(pat).toMatchObject({ customerType: 'INDIVIDUAL', fullName: 'Pat Doe 002', kycStatus: 'REJECTED', platformCustomerId: 'console-pat' });
    const events = (await platform.req('GET', '/webhook-events?limit=50')).json().data.map((e: { type: string }) => e.type);
    expect(events).toContain('CUSTOMER.KYC_REJECTED');

    const logged = (await platform.req('GET', `/request-logs?path=${encodeURIComponent('/console/customers/new')}&method=POST`)).json();
    expect(logged.data.map((e: { status: number; path: string }) => `${e.status} ${e.path}`).sort()).toEqual(['303 /console/customers/new/BUSINESS', '303 /console/customers/new/INDIVIDUAL']);
  });

  it('does a form once per page shown: sent twice (a double click, a reload) it creates one customer and both land on it; other values from the page are another', async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    const page = await browser.get('/console/customers');
    const token = /name="_submission" value="([^"]+)"/.exec(page.body)?.[1];
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    // Every form of the page carries it: the create forms and the others.
    expect(page.body.match(/name="_submission"/g)?.length).toBeGreaterThanOrEqual(2);
    const form = { ...BUSINESS, 'businessInfo.legalName': 'Twice Clicked Inc.' };
    const [first, second] = await Promise.all([
      browser.post('/console/customers/new/BUSINESS', form, { submission: true }),
      browser.post('/console/customers/new/BUSINESS', form, { submission: true }),
    ]);
    expect([first.statusCode, second.statusCode], textOf(first.body + second.body)).toEqual([303, 303]);
    expect(second.headers.location).toBe(first.headers.location);
    // A reload of the POST, later: the same customer again.
    const reload = await browser.post('/console/customers/new/BUSINESS', form, { submission: true });
    expect(reload.statusCode).toBe(303);
    expect(reload.headers.location).toBe(first.headers.location);
    const named = async (legalName: string) =>
      (await platform.req('GET', '/customers?limit=100')).json().data.filter((c: { businessInfo?: { legalName: string } }) => c.businessInfo?.legalName === legalName);
    expect(await named('Twice Clicked Inc.')).toHaveLength(1);
    // The page's token with other values (the back button, then another business): another customer.
    const other = await browser.post('/console/customers/new/BUSINESS', { ...form, 'businessInfo.legalName': 'Clicked Once Ltd.' }, { submission: true });
    expect(other.statusCode).toBe(303);
    expect(other.headers.location).not.toBe(first.headers.location);
    expect(await named('Clicked Once Ltd.')).toHaveLength(1);
    // A refused form lets its token go: sent again as it was, it is refused again (not sent to a page it never made).
    const refusedTwice = [];
    for (let i = 0; i < 2; i++) refusedTwice.push(await browser.post('/console/customers/new/BUSINESS', { ...form, 'businessInfo.taxId': '' }, { submission: true }));
    expect(refusedTwice.map((r) => r.statusCode)).toEqual([400, 400]);
    expect(textOf(refusedTwice[1]!.body)).toContain('businessInfo.taxId');
  });

  it('shows every invalid field of a new customer on its form at once, with the values sent back, and creates nothing', async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    await browser.get('/console/customers');
    const res = await browser.post('/console/customers/new/BUSINESS', { 'businessInfo.legalName': 'Half Done LLC', email: 'not-an-email', 'address.line1': '1 Way' });
    expect(res.statusCode).toBe(400);
    const form = /<form[^>]*id="new-business"[\s\S]*?<\/form>/.exec(res.body)![0];
    const alert = textOf(/<div class="error" role="alert"[\s\S]*?<\/div>/.exec(form)![0]);
    expect(alert).toContain('400 INVALID_INPUT');
    for (const [label, field] of [['Incorporated on', 'businessInfo.incorporatedOn'], ['Tax ID', 'businessInfo.taxId'], ['Email', 'email'], ['Postal code', 'address.postalCode'], ['Country', 'address.country']]) {
      expect(alert, field).toContain(`${label} ( ${field} )`);
    }
    expect(form).toMatch(/name="businessInfo.taxId" type="text" required value="" aria-invalid="true" aria-describedby="new-business-businessInfo-taxId-error"/);
    expect(form).toContain('value="Half Done LLC"');
    expect(form).toContain('value="not-an-email"');
    // The other form on the page is untouched.
    expect(/<form[^>]*id="new-individual"[\s\S]*?<\/form>/.exec(res.body)![0]).not.toContain('role="alert"');
    // A duplicate platformCustomerId is the API's 409, on the form.
    await business(browser);
    const first = (await platform.req('GET', '/customers')).json().data[0];
    await browser.get('/console/customers');
    const dup = await browser.post('/console/customers/new/INDIVIDUAL', { fullName: 'Sam Twice', platformCustomerId: first.platformCustomerId });
    expect(dup.statusCode).toBe(409);
    expect(textOf(dup.body)).toContain('409 CONFLICT');
    expect((await platform.req('GET', '/customers')).json().totalCount).toBe(1);
  });

  it('adds a beneficial owner to a business, showing its errors on the form', async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    const id = await business(browser);
    const page = await browser.get(`/console/customers/${id}`);
    expect(page.body).toContain('<legend>Roles</legend>');
    const bad = await browser.post(`/console/customers/${id}/beneficial-owners`, { ...OWNER, roles: '', ownershipPercentage: 'lots', 'personalInfo.nationality': '' });
    expect(bad.statusCode).toBe(400);
    const alert = textOf(/<div class="error" role="alert"[\s\S]*?<\/div>/.exec(bad.body)![0]);
    expect(alert).toContain('Roles ( roles ) is required');
    expect(alert).toContain('Ownership percentage ( ownershipPercentage )');
    expect(alert).toContain('Nationality ( personalInfo.nationality ) is required');
    expect(bad.body).toContain('value="Lovelace"');
    expect((await platform.req('GET', `/beneficial-owners?customerId=${encodeURIComponent(id)}`)).json().totalCount).toBe(0);

    const added = await browser.post(`/console/customers/${id}/beneficial-owners`, OWNER);
    expect(added.statusCode).toBe(303);
    const owners = (await platform.req('GET', `/beneficial-owners?customerId=${encodeURIComponent(id)}`)).json().data;
    expect(owners).toHaveLength(1);
    expect(owners[0]).toMatchObject({ roles: ['UBO'], ownershipPercentage: 40, personalInfo: { firstName: 'Ada', lastName: 'Lovelace', nationality: 'GB' }, kycStatus: 'UNVERIFIED' });
    expect(added.headers.location).toBe(`/console/customers/${encodeURIComponent(id)}?owner=${encodeURIComponent(owners[0].id)}`);
    expect(textOf((await browser.get(added.headers.location as string)).body)).toMatch(/Ada Lovelace UBO 40 % UNVERIFIED/);
  });

  it('submits a business for verification: what is missing is listed, and a sandbox business is approved at once', async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    const checked = await business(browser, 'C1234001');
    await browser.get(`/console/customers/${checked}`);
    const resolve = await browser.post(`/console/customers/${checked}/verifications`, {});
    expect(resolve.statusCode).toBe(303);
    const listed = textOf((await browser.get(resolve.headers.location as string)).body);
    expect(listed).toContain('RESOLVE_ERRORS');
    expect(listed).toContain('MISSING_BENEFICIAL_OWNER');
    expect(listed).toContain('MISSING_LEGAL_PRESENCE_DOCUMENT');

    const plain = await business(browser);
    await browser.get(`/console/customers/${plain}`);
    const approved = await browser.post(`/console/customers/${plain}/verifications`, {});
    const verificationId = new URL(approved.headers.location as string, 'http://console').searchParams.get('verification')!;
    expect((await platform.req('GET', `/verifications/${encodeURIComponent(verificationId)}`)).json()).toMatchObject({ customerId: plain, verificationStatus: 'APPROVED' });
    const after = await browser.get(approved.headers.location as string);
    expect(textOf(after.body)).toContain('KYB status APPROVED');
    // Decided: no more submissions offered; one sent anyway is the API's 400 on the form.
    expect(after.body).not.toContain('Submit for verification</button>');
    const again = await browser.post(`/console/customers/${plain}/verifications`, {});
    expect(again.statusCode).toBe(400);
    expect(textOf(again.body)).toContain('customerId is already APPROVED');
    const events = (await platform.req('GET', '/webhook-events?limit=50')).json().data.map((e: { type: string }) => e.type);
    expect(events).toEqual(expect.arrayContaining(['VERIFICATION.APPROVED', 'CUSTOMER.KYB_APPROVED', 'VERIFICATION.RESOLVE_ERRORS']));
  });

  it('uploads a document for the customer or an owner through the same service as POST /documents; its errors on the form, its bytes never in the request log', async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    const id = await business(browser, 'C1234001');
    await browser.get(`/console/customers/${id}`);
    expect((await browser.post(`/console/customers/${id}/beneficial-owners`, OWNER)).statusCode).toBe(303);
    await browser.post(`/console/customers/${id}/verifications`, {});
    const page = await browser.get(`/console/customers/${id}`);
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(textOf(page.body)).toContain('MISSING_LEGAL_PRESENCE_DOCUMENT');
    const pdf = Buffer.from('%PDF-1.4\n% console upload secret-bytes-4242\n%%EOF\n');

    const bad = await browser.postMultipart(`/console/customers/${id}/documents`, { documentHolder: id, documentType: 'PASSPORTISH', country: '' }, { name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('just text') });
    expect(bad.statusCode).toBe(400);
    const alert = textOf(/<div class="error" role="alert"[\s\S]*?<\/div>/.exec(bad.body)![0]);
    expect(alert).toContain('Document type ( documentType )');
    expect(alert).toContain('Issuing country ( country ) is required');
    expect(alert).toContain('File ( file ) is not a PDF, PNG or JPEG file');
    const noFile = await browser.postMultipart(`/console/customers/${id}/documents`, { documentHolder: id, documentType: 'CERTIFICATE_OF_INCORPORATION', country: 'US' });
    expect(noFile.statusCode).toBe(400);
    expect(textOf(noFile.body)).toContain('File ( file ) is required');
    const other = await insertTestCustomer(t, platform, 'BUSINESS');
    const foreign = await browser.postMultipart(`/console/customers/${id}/documents`, { documentHolder: other, documentType: 'CERTIFICATE_OF_INCORPORATION', country: 'US' }, { name: 'inc.pdf', type: 'application/pdf', bytes: pdf });
    expect(textOf(foreign.body)).toContain('Document holder ( documentHolder ) is not this customer or one of its beneficial owners');
    expect((await platform.req('GET', '/documents')).json().data).toHaveLength(0);

    const uploaded = await browser.postMultipart(`/console/customers/${id}/documents`, { documentHolder: id, documentType: 'CERTIFICATE_OF_INCORPORATION', country: 'US' }, { name: 'inc.pdf', type: 'application/pdf', bytes: pdf });
    expect(uploaded.statusCode, textOf(uploaded.body)).toBe(303);
    const documents = (await platform.req('GET', `/documents?documentHolder=${encodeURIComponent(id)}`)).json().data;
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ documentHolder: id, documentType: 'CERTIFICATE_OF_INCORPORATION', country: 'US', fileName: 'inc.pdf' });
    const after = textOf((await browser.get(uploaded.headers.location as string)).body);
    expect(after).toContain(`Document ${documents[0].id} uploaded.`);
    expect(after).toContain('CERTIFICATE_OF_INCORPORATION US inc.pdf');
    // Submitted again, the legal presence document is no longer missing.
    await browser.post(`/console/customers/${id}/verifications`, {});
    const latest = (await platform.req('GET', `/verifications?customerId=${encodeURIComponent(id)}`)).json().data.at(-1);
    expect(latest.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(latest.errors.map((e: { type: string }) => e.type)).not.toContain('MISSING_LEGAL_PRESENCE_DOCUMENT');

    const logged = (await platform.req('GET', `/request-logs?path=${encodeURIComponent(`/console/customers/${id}/documents`)}&status=303`)).json().data;
    expect(logged).toHaveLength(1);
    expect(logged[0].requestBody).toContain('multipart/form-data');
    expect(JSON.stringify(logged)).not.toContain('secret-bytes-4242');

    const viewer = await t.services.tokens.create(platform.platformId, { name: 'upload viewer', permissions: ['VIEW'], environment: 'sandbox' });
    const limited = await signedIn(viewer);
    await limited.get(`/console/customers/${id}`);
    const refused = await limited.postMultipart(`/console/customers/${id}/documents`, { documentHolder: id, documentType: 'SHAREHOLDER_REGISTER', country: 'US' }, { name: 'reg.pdf', type: 'application/pdf', bytes: pdf });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('this action needs a token with the TRANSACT permission');
    expect((await browser.postMultipart(`/console/customers/${id}/documents`, { documentHolder: id, documentType: 'SHAREHOLDER_REGISTER', country: 'US' }, { name: 'reg.pdf', type: 'application/pdf', bytes: pdf })).statusCode).toBe(303);
    browser.csrf = 'forged';
    expect((await browser.postMultipart(`/console/customers/${id}/documents`, { documentHolder: id, documentType: 'DIRECTOR_REGISTRY', country: 'US' }, { name: 'dir.pdf', type: 'application/pdf', bytes: pdf })).statusCode).toBe(403);
    expect((await platform.req('GET', `/documents?documentHolder=${encodeURIComponent(id)}`)).json().data.map((d: { documentType: string }) => d.documentType).sort()).toEqual(['CERTIFICATE_OF_INCORPORATION', 'SHAREHOLDER_REGISTER']);
  });

  it("funds a customer's account and issues it a card; the balances equal the ledger, and errors are shown on each form", async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    const id = await business(browser);
    const page = await browser.get(`/console/customers/${id}`);
    const accountId = /<option value="(InternalAccount:[^"]+)"/.exec(page.body)![1]!;

    // Not yet approved: the card is the API's refusal, on the form.
    const early = await browser.post(`/console/customers/${id}/cards`, { fundingSources: accountId });
    expect(early.statusCode).toBe(400);
    expect(textOf(early.body)).toContain('CARDHOLDER_KYC_NOT_APPROVED');
    await browser.post(`/console/customers/${id}/verifications`, {});

    for (const amount of ['ten', '0', '10.5', '']) {
      const bad = await browser.post(`/console/customers/${id}/fund`, { accountId, amount });
      expect(bad.statusCode, amount).toBe(400);
      expect(textOf(bad.body), amount).toContain('Amount ( amount )');
    }
    const noAccount = await browser.post(`/console/customers/${id}/fund`, { accountId: '', amount: 'x' });
    expect(textOf(noAccount.body)).toMatch(/Account \( accountId \) is required.*Amount \( amount \)/);
    const other = await insertTestCustomer(t, platform, 'BUSINESS');
    const otherAccount = (await platform.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(other)}`)).json().data[0].id;
    const foreign = await browser.post(`/console/customers/${id}/fund`, { accountId: otherAccount, amount: '100' });
    expect(foreign.statusCode).toBe(400);
    expect(textOf(foreign.body)).toContain("accountId ) is not one of this customer's internal accounts");

    const funded = await browser.post(`/console/customers/${id}/fund`, { accountId, amount: '10000' });
    expect(funded.headers.location).toBe(`/console/customers/${encodeURIComponent(id)}?funded=${encodeURIComponent(accountId)}`);
    expect(textOf((await browser.get(funded.headers.location as string)).body)).toContain(`Account ${accountId} funded: available 100.00 USD, total 100.00 USD.`);
    const account = (await platform.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(id)}`)).json().data.find((a: { id: string }) => a.id === accountId);
    const entries = await entriesOf(t.services.store.db, accountId);
    expect([account.balance.amount, account.totalBalance.amount]).toEqual([10_000, 10_000]);
    expect(entries.reduce((sum, e) => sum + Number(e.amount), 0)).toBe(10_000);

    const badCard = await browser.post(`/console/customers/${id}/cards`, { fundingSources: accountId, maxSpendPerTransaction: 'plenty', platformCardId: 'x'.repeat(201) });
    expect(badCard.statusCode).toBe(400);
    expect(textOf(badCard.body)).toContain('Spend limit per transaction ( maxSpendPerTransaction )');
    expect(textOf(badCard.body)).toContain('Platform card ID ( platformCardId )');
    const issued = await browser.post(`/console/customers/${id}/cards`, { fundingSources: accountId, platformCardId: 'console-card-042' });
    expect(issued.statusCode).toBe(303);
    const cardId = createdId(issued.headers.location, '/console/cards/');
    expect((await platform.req('GET', `/cards/${encodeURIComponent(cardId)}`)).json()).toMatchObject({ cardholderId: id, fundingSources: [accountId], form: 'VIRTUAL', last4: expect.stringMatching(/042$/) });
    expect(textOf((await browser.get(issued.headers.location as string)).body)).toContain('Card issued');
    const before = await browser.get(`/console/cards/${cardId}`, { 'hx-request': 'true' });
    expect(before.body).toMatch(/<span id="card-state" hx-swap-oob="true"><span class="badge">PROCESSING<\/span>/);
    await provisionCards(t.services);
    // The card page's live refresh carries its state too, so a card turning ACTIVE shows without a reload.
    const live = await browser.get(`/console/cards/${cardId}`, { 'hx-request': 'true' });
    expect(live.body).toMatch(/<span id="card-state" hx-swap-oob="true"><span class="badge">ACTIVE<\/span>/);
  });

  it("takes a new transaction's merchant category code and country, as the demo sends them", async () => {
    const card = await activeCard(t);
    await t.services.internalAccounts.fund(t.caller.platformId, card.fundingSources[0], 5_000);
    const browser = await signedIn(t.caller);
    const page = await browser.get(`/console/cards/${card.id}`);
    expect(page.body).toMatch(/<label for="authorization-mcc">MCC \(optional\)<\/label>\s*<input id="authorization-mcc" name="mcc"/);
    const bad = await browser.post(`/console/cards/${card.id}/simulate/financial_authorization`, { amount: '1000', merchantDescriptor: 'ATM WITHDRAWAL 24TH ST', mcc: '60', merchantCountry: 'ZZ' });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('mcc must be four digits');
    expect(textOf(bad.body)).toContain('merchantCountry must be a two-letter ISO 3166-1 country code');
    const sent = await browser.post(`/console/cards/${card.id}/simulate/financial_authorization`, { amount: '1000', merchantDescriptor: 'ATM WITHDRAWAL 24TH ST', mcc: '6011', merchantCountry: 'US' });
    expect(sent.statusCode).toBe(303);
    const transactionId = new URL(sent.headers.location as string, 'http://console').searchParams.get('transaction')!;
    const plain = await browser.post(`/console/cards/${card.id}/simulate/authorization`, { amount: '100', merchantDescriptor: 'NO MCC CAFE', mcc: '', merchantCountry: '' });
    expect(plain.statusCode).toBe(303);
    await drainCardJobs(t.services, t.app.log);
    expect((await t.caller.req('GET', `/transactions/${transactionId}`)).json().merchant).toEqual({ descriptor: 'ATM WITHDRAWAL 24TH ST', mcc: '6011', country: 'US' });
    expect(textOf((await browser.get(`/console/transactions/${transactionId}`)).body)).toContain('Merchant ATM WITHDRAWAL 24TH ST, MCC 6011, US');
    const plainId = new URL(plain.headers.location as string, 'http://console').searchParams.get('transaction')!;
    expect((await t.caller.req('GET', `/transactions/${plainId}`)).json().merchant).toEqual({ descriptor: 'NO MCC CAFE' });
  });

  it('reveals a card through a single-use link shown once', async () => {
    const platform = await t.newCaller();
    const browser = await signedIn(platform);
    const id = await business(browser);
    await browser.get(`/console/customers/${id}`);
    await browser.post(`/console/customers/${id}/verifications`, {});
    const page = await browser.get(`/console/customers/${id}`);
    const accountId = /<option value="(InternalAccount:[^"]+)"/.exec(page.body)![1]!;
    const cardId = createdId((await browser.post(`/console/customers/${id}/cards`, { fundingSources: accountId })).headers.location, '/console/cards/');
    const viewer = await t.services.tokens.create(platform.platformId, { name: 'reveal viewer', permissions: ['VIEW'], environment: 'sandbox' });
    const limited = await signedIn(viewer);
    await limited.get(`/console/cards/${cardId}`);
    const refused = await limited.post(`/console/cards/${cardId}/reveal`, {});
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain('this action needs a token with the TRANSACT permission');
    expect(refused.body).not.toContain('Open the card details');
    await browser.get(`/console/cards/${cardId}`);
    const revealed = await browser.post(`/console/cards/${cardId}/reveal`, {});
    expect(revealed.statusCode).toBe(200);
    const url = new URL(/<a href="([^"]+)"[^>]*>Open the card details/.exec(revealed.body)![1]!.replace(/&amp;/g, '&'));
    const once = await t.app.inject({ method: 'GET', url: url.pathname });
    expect(once.statusCode).toBe(200);
    expect(once.body).toMatch(/id="pan">[\d ]+</);
    expect((await t.app.inject({ method: 'GET', url: url.pathname })).statusCode).toBe(404);
    const logged = (await platform.req('GET', `/request-logs?status=200&path=${encodeURIComponent(`/console/cards/${cardId}/reveal`)}`)).json().data;
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0])).not.toContain(url.pathname.split('/').pop());
  });

  it('refuses every create form to a VIEW token as the other console forms are refused, and a form without its CSRF token; nothing is created', async () => {
    const platform = await t.newCaller();
    const id = await insertTestCustomer(t, platform, 'BUSINESS');
    const owner = await platform.req('POST', '/beneficial-owners', { customerId: id, roles: ['UBO'], ownershipPercentage: 10, personalInfo: { firstName: 'A', lastName: 'B', birthDate: '1980-01-01', nationality: 'US', address: { line1: '1 St', postalCode: '94105', country: 'US' }, idType: 'SSN', identifier: '123-45-6789' } });
    expect(owner.statusCode).toBe(201);
    const accountId = (await platform.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(id)}`)).json().data[0].id;
    const viewer = await t.services.tokens.create(platform.platformId, { name: 'forms viewer', permissions: ['VIEW'], environment: 'sandbox' });
    const limited = await signedIn(viewer);
    const page = await limited.get(`/console/customers/${id}`);
    expect(textOf(page.body)).toContain('Your token has the VIEW permission: these forms are refused.');
    const forms: [string, Record<string, string>][] = [
      ['/console/customers/new/BUSINESS', BUSINESS],
      ['/console/customers/new/INDIVIDUAL', { fullName: 'Vee Viewer' }],
      [`/console/customers/${id}/beneficial-owners`, OWNER],
      [`/console/customers/${id}/verifications`, {}],
      [`/console/customers/${id}/fund`, { accountId, amount: '100' }],
      [`/console/customers/${id}/cards`, { fundingSources: accountId }],
    ];
    const cards = await signedIn(platform);
    for (const [url, form] of forms) {
      const refused = await limited.post(url, form);
      expect(refused.statusCode, url).toBe(403);
      const text = textOf(refused.body);
      expect(text, url).toContain('403 FORBIDDEN');
      expect(text, url).toContain('You are signed in with a VIEW token: the console shows everything, but this action needs a token with the TRANSACT permission.');
      await cards.get('/console/customers');
      expect((await cards.post(url, form, { csrf: false })).statusCode, `${url} without CSRF`).toBe(403);
    }
    expect((await platform.req('GET', '/customers')).json().totalCount).toBe(1);
    expect((await platform.req('GET', `/beneficial-owners?customerId=${encodeURIComponent(id)}`)).json().totalCount).toBe(1);
    expect((await platform.req('GET', `/verifications?customerId=${encodeURIComponent(id)}`)).json().totalCount).toBe(0);
    expect((await platform.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(id)}`)).json().data[0].balance.amount).toBe(0);
    expect((await platform.req('GET', '/cards')).json().data).toHaveLength(0);
  });
});
