import { beforeAll, expect, it } from 'vitest';
import { expectErrorObject } from '../helpers/error-object.js';
import { bolt11Invoice, clabeEndingIn, eip55, eurAccount, ibanEndingIn, individual, ROUTING, solanaAddress, sparkAddress, tronAddress, usdAccount, VALID_CNPJ, VALID_CPF, walletAccount } from '../helpers/external-accounts.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

describeEachEngine(
  'customer external accounts: create, read, list, delete, ownership challenge and verify',
  (t) => {
    const ctx = connectedCaller(t);
    let customerId: string;

    beforeAll(async () => {
      const customer = await ctx.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'ext-1' });
      expect(customer.statusCode, customer.body).toBe(201);
      customerId = customer.json().id;
    });

    const create = async (body: Record<string, unknown>, c: Caller = ctx.caller) => {
      const res = await c.req('POST', '/customers/external-accounts', { customerId, ...body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    const statusEvents = (id: string) => ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === 'EXTERNAL_ACCOUNT.STATUS_UPDATED' && (d.payload.data as { id: string }).id === id);

    it('creates a US account ACTIVE and MATCHED, answering it as GET does, with the rails of its type', async () => {
      const account = await create({ ...usdAccount('4400012345'), platformAccountId: 'mine-1' });
      expect(account).toMatchObject({ customerId, status: 'ACTIVE', currency: 'USD', platformAccountId: 'mine-1', defaultUmaDepositAccount: false, beneficiaryVerificationStatus: 'MATCHED', beneficiaryVerifiedData: { fullName: 'John Doe' } });
      expect(account.id).toMatch(/^ExternalAccount:/);
      expect(account.accountInfo).toMatchObject({ accountType: 'USD_ACCOUNT', accountNumber: '4400012345', routingNumber: ROUTING, paymentRails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'] });
      expect((await ctx.caller.req('GET', `/customers/external-accounts/${account.id}`)).json()).toEqual(account);
    });

    it('accepts one account of many types, each with valid checksums', async () => {
      const bodies = [
        eurAccount(ibanEndingIn('321')),
        { currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: clabeEndingIn('321'), beneficiary: individual() } },
        { currency: 'BRL', accountInfo: { accountType: 'BRL_ACCOUNT', pixKey: 'maria.321@example.com.br', pixKeyType: 'EMAIL', taxId: VALID_CPF, beneficiary: individual() } },
        { currency: 'BRL', accountInfo: { accountType: 'BRL_ACCOUNT', pixKey: VALID_CNPJ, pixKeyType: 'CNPJ', taxId: VALID_CNPJ, beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Loja Ltda' } } },
        { currency: 'INR', accountInfo: { accountType: 'INR_ACCOUNT', vpa: 'maria321@upi', beneficiary: individual() } },
        { currency: 'KES', accountInfo: { accountType: 'KES_ACCOUNT', phoneNumber: '+254712345321', provider: 'M-PESA', beneficiary: individual() } },
        { currency: 'GBP', accountInfo: { accountType: 'GBP_ACCOUNT', sortCode: '123456', accountNumber: '12345321', beneficiary: individual() } },
        { currency: 'USD', accountInfo: { accountType: 'SWIFT_ACCOUNT', country: 'DE', swiftCode: 'DEUTDEFF', bankName: 'Deutsche Bank', iban: ibanEndingIn('654'), beneficiary: individual() } },
        walletAccount('BASE_WALLET', eip55('de709f2102306220921060314715629080e2fb77'), { vaspName: 'Coinbase' }),
        walletAccount('SOLANA_WALLET', solanaAddress(), { vaspName: 'Phantom' }),
        { currency: 'USDT', ownershipType: 'THIRD_PARTY', accountInfo: { accountType: 'TRON_WALLET', address: tronAddress() } },
        { currency: 'BTC', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress() } },
        { currency: 'BTC', accountInfo: { accountType: 'LIGHTNING', invoice: bolt11Invoice() } },
      ];
      for (const body of bodies) {
        const account = await create(body);
        expect(account.accountInfo.accountType, JSON.stringify(body)).toBe(body.accountInfo.accountType);
        expect(account.status).toBe('ACTIVE');
      }
    });

    it('names every invalid field in one 400: a bad checksum, a missing required field, an unknown field, a wrong currency', async () => {
      const res = await ctx.caller.req('POST', '/customers/external-accounts', {
        customerId,
        currency: 'EUR',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123', routingNumber: '021000022', nickname: 'x' },
      });
      const err = expectErrorObject(res, 'many invalid fields');
      expect(err.status).toBe(400);
      expect(err.code).toBe('INVALID_INPUT');
      const fields = (err.details!.errors as { field: string }[]).map((e) => e.field).sort();
      expect(fields).toEqual(['accountInfo.beneficiary', 'accountInfo.nickname', 'accountInfo.routingNumber', 'currency'].sort());
    });

    it('refuses an IBAN, a CLABE, a CPF and an EVM address whose check digits do not match, each on its field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [eurAccount('DE89370400440532013001'), 'accountInfo.iban'],
        [{ currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002010077777777772', beneficiary: individual() } }, 'accountInfo.clabeNumber'],
        [{ currency: 'BRL', accountInfo: { accountType: 'BRL_ACCOUNT', pixKey: '52998224726', pixKeyType: 'CPF', taxId: VALID_CPF, beneficiary: individual() } }, 'accountInfo.pixKey'],
        [walletAccount('ETHEREUM_WALLET', '0x52908400098527886E0F7030069857D2E4169Ee7'), 'accountInfo.address'],
      ];
      for (const [body, field] of cases) {
        const res = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...body });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().details.errors.map((e: { field: string }) => e.field)).toEqual([field]);
      }
    });

    it('answers an unknown accountType with the allowed values on accountInfo.accountType', async () => {
      const res = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: { accountType: 'CHEQUE_BOOK' } });
      expect(res.statusCode).toBe(400);
      const [error] = res.json().details.errors;
      expect(error.field).toBe('accountInfo.accountType');
      expect(error.constraint.enum).toContain('USD_ACCOUNT');
    });

    it('refuses the same type and identifier twice for one customer with 409, and accepts it again once the first is deleted', async () => {
      const first = await create(usdAccount('99887766'));
      const again = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('99887766') });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('CONFLICT');
      expect((await ctx.caller.req('DELETE', `/customers/external-accounts/${first.id}`)).statusCode).toBe(204);
      expect((await ctx.caller.req('GET', `/customers/external-accounts/${first.id}`)).statusCode).toBe(404);
      expect((await ctx.caller.req('DELETE', `/customers/external-accounts/${first.id}`)).json().code).toBe('REFERENCE_NOT_FOUND');
      await create(usdAccount('99887766'));
    });

    it('creates one account of five identical requests sent at once; the others are 409', async () => {
      const answers = await Promise.all(Array.from({ length: 5 }, () => ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('12121212') })));
      expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
    });

    it('keeps one default UMA deposit account per customer', async () => {
      const a = await create({ ...usdAccount('5550001'), defaultUmaDepositAccount: true });
      const b = await create({ ...usdAccount('5550002'), defaultUmaDepositAccount: true });
      expect((await ctx.caller.req('GET', `/customers/external-accounts/${a.id}`)).json().defaultUmaDepositAccount).toBe(false);
      expect((await ctx.caller.req('GET', `/customers/external-accounts/${b.id}`)).json().defaultUmaDepositAccount).toBe(true);
    });

    it('lists oldest first with cursors, filtered by customerId and currency', async () => {
      const other = (await ctx.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL' })).json().id;
      const made = [];
      for (const n of [1, 2, 3]) made.push((await ctx.caller.req('POST', '/customers/external-accounts', { customerId: other, ...usdAccount(`77700${n}`) })).json().id);
      await ctx.caller.req('POST', '/customers/external-accounts', { customerId: other, ...eurAccount(ibanEndingIn('777')) });
      const first = (await ctx.caller.req('GET', `/customers/external-accounts?customerId=${other}&currency=USD&limit=2`)).json();
      expect(first.data.map((a: { id: string }) => a.id)).toEqual(made.slice(0, 2));
      expect(first).toMatchObject({ hasMore: true, totalCount: 3 });
      const second = (await ctx.caller.req('GET', `/customers/external-accounts?customerId=${other}&currency=USD&limit=2&cursor=${first.nextCursor}`)).json();
      expect(second.data.map((a: { id: string }) => a.id)).toEqual(made.slice(2));
      expect(second.hasMore).toBe(false);
      const mismatched = await ctx.caller.req('GET', `/customers/external-accounts?customerId=${other}&limit=2&cursor=${first.nextCursor}`);
      expect(mismatched.json().details.errors[0].field).toBe('cursor');
    });

    it('verifies a FIRST_PARTY self-custody wallet by signature: PENDING_OWNERSHIP_VERIFICATION, UNVERIFIED on a bad one, ACTIVE on a good one, each change a verified webhook', async () => {
      const wallet = await create(walletAccount());
      expect(wallet.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
      const path = `/customers/external-accounts/${wallet.id}`;
      expect((await ctx.caller.req('POST', `${path}/verify`, { signature: '0xabc' })).json().code).toBe('INVALID_STATE_TRANSITION');
      const challenge = await ctx.caller.req('POST', `${path}/challenge`, { method: 'WALLET_SIGNATURE' });
      expect(challenge.statusCode, challenge.body).toBe(201);
      expect(challenge.json()).toMatchObject({ method: 'WALLET_SIGNATURE' });
      expect(challenge.json().messageToSign).toContain(wallet.accountInfo.address);
      expect(Date.parse(challenge.json().expiresAt)).toBeGreaterThan(Date.now());
      const refused = await ctx.caller.req('POST', `${path}/verify`, { signature: 'invalid' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().details.errors[0].field).toBe('signature');
      expect((await ctx.caller.req('GET', path)).json().status).toBe('UNVERIFIED');
      await ctx.caller.req('POST', `${path}/challenge`, { method: 'WALLET_SIGNATURE' });
      expect((await ctx.caller.req('GET', path)).json().status).toBe('PENDING_OWNERSHIP_VERIFICATION');
      const verified = await ctx.caller.req('POST', `${path}/verify`, { signature: '0x52d75f01c9e7b8b2ce2fbcbd21bfeeee7bcd1a2f01ce6b8ad9a67a45e83a8f5d1c' });
      expect(verified.statusCode, verified.body).toBe(200);
      expect(verified.json().status).toBe('ACTIVE');
      await ctx.receiver.waitFor(() => statusEvents(wallet.id).length === 3);
      expect(statusEvents(wallet.id).map((d) => (d.payload!.data as { status: string }).status)).toEqual(['UNVERIFIED', 'PENDING_OWNERSHIP_VERIFICATION', 'ACTIVE']);
      expect(statusEvents(wallet.id).every((d) => d.verified)).toBe(true);
      expect(statusEvents(wallet.id)[2]!.payload!.data).toEqual(verified.json());
      expect((await ctx.caller.req('POST', `${path}/challenge`, { method: 'LIVENESS' })).statusCode).toBe(409);
    });

    it('keeps the move to UNVERIFIED of a refused signature sent with an Idempotency-Key, and replays the 400', async () => {
      const wallet = await create(walletAccount('ETHEREUM_WALLET', eip55('8617e340b3d01fa5f11f306f4090fd50e238070d')));
      const path = `/customers/external-accounts/${wallet.id}`;
      await ctx.caller.req('POST', `${path}/challenge`, { method: 'WALLET_SIGNATURE' });
      const headers = { 'idempotency-key': `verify-${t.engine}` };
      const refused = await ctx.caller.req('POST', `${path}/verify`, { signature: 'invalid' }, headers);
      expect(refused.statusCode).toBe(400);
      expect((await ctx.caller.req('GET', path)).json().status).toBe('UNVERIFIED');
      const replayed = await ctx.caller.req('POST', `${path}/verify`, { signature: 'invalid' }, headers);
      expect(replayed.statusCode).toBe(400);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.json()).toEqual(refused.json());
    });

    it('completes a LIVENESS challenge asynchronously, with a verified EXTERNAL_ACCOUNT.STATUS_UPDATED', async () => {
      const wallet = await create(walletAccount('POLYGON_WALLET', eip55('fb6916095ca1df60bb79ce92ce3ea74c37c5d359')));
      const challenge = await ctx.caller.req('POST', `/customers/external-accounts/${wallet.id}/challenge`, { method: 'LIVENESS' });
      expect(challenge.statusCode, challenge.body).toBe(201);
      expect(challenge.json().verificationLink).toMatch(/^https:\/\//);
      await ctx.receiver.waitFor(() => statusEvents(wallet.id).length === 1);
      expect(statusEvents(wallet.id)[0]!.payload!.data).toMatchObject({ id: wallet.id, status: 'ACTIVE' });
      expect((await ctx.caller.req('GET', `/customers/external-accounts/${wallet.id}`)).json().status).toBe('ACTIVE');
    });

    it('refuses a challenge on a bank account or a THIRD_PARTY wallet with 409', async () => {
      const bank = await create(usdAccount('31313131'));
      const third = await create({ ...walletAccount('ETHEREUM_WALLET', eip55('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')), ownershipType: 'THIRD_PARTY' });
      expect(third.status).toBe('ACTIVE');
      for (const id of [bank.id, third.id]) {
        const res = await ctx.caller.req('POST', `/customers/external-accounts/${id}/challenge`, { method: 'WALLET_SIGNATURE' });
        expect(res.statusCode).toBe(409);
        expect(res.json().code).toBe('INVALID_STATE_TRANSITION');
      }
    });

    it("answers another platform's, another environment's and the platform's own account exactly like an unknown one", async () => {
      const mine = await create(usdAccount('60606060'));
      const stranger = await t.newCaller();
      const production = await t.newCaller('production', ctx.caller);
      const platformOwn = (await ctx.caller.req('POST', '/platform/external-accounts', usdAccount('70707070'))).json();
      const unknown = await ctx.caller.req('GET', '/customers/external-accounts/ExternalAccount:019542f5-b3e7-7d02-8000-000000000000');
      for (const [who, id] of [
        [stranger, mine.id],
        [production, mine.id],
        [ctx.caller, platformOwn.id],
      ] as const) {
        const res = await who.req('GET', `/customers/external-accounts/${id}`);
        expect(res.statusCode).toBe(404);
        expect({ ...res.json(), message: '' }).toEqual({ ...unknown.json(), message: '' });
        expect((await who.req('DELETE', `/customers/external-accounts/${id}`)).statusCode).toBe(404);
      }
      expect((await stranger.req('GET', `/customers/external-accounts?customerId=${customerId}`)).json().totalCount).toBe(0);
      const foreign = await stranger.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('1') });
      expect(foreign.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['customerId']);
    });

    it('replays a create sent again with the same Idempotency-Key, creating one account', async () => {
      const headers = { 'idempotency-key': `ea-${t.engine}-1` };
      const first = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('80808080') }, headers);
      const second = await ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...usdAccount('80808080') }, headers);
      expect(first.statusCode).toBe(201);
      expect(second.json()).toEqual(first.json());
      await until('one account', async () => ((await ctx.caller.req('GET', `/customers/external-accounts?customerId=${customerId}&currency=USD&limit=100`)).json().data.filter((a: { accountInfo: { accountNumber?: string } }) => a.accountInfo.accountNumber === '80808080').length === 1 ? true : undefined));
    });
  },
  { SANDBOX_EXTERNAL_ACCOUNT_REVIEW_DELAY_MS: '200' },
);
