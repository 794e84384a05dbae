import { beforeAll, expect, it } from 'vitest';
import { expectErrorObject } from '../helpers/error-object.js';
import { clabeEndingIn, eurAccount, ibanEndingIn, individual, usdAccount } from '../helpers/external-accounts.js';
import { describeEachEngine } from '../helpers/test-app.js';
import { connectedCaller } from '../helpers/webhook-receiver.js';

const DELAY_MS = 250;

describeEachEngine(
  'beneficiary name verification by the sandbox 1xx suffixes',
  (t) => {
    const ctx = connectedCaller(t);
    let customerId: string;

    beforeAll(async () => {
      customerId = (await ctx.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL' })).json().id;
    });

    const post = (body: Record<string, unknown>) => ctx.caller.req('POST', '/customers/external-accounts', { customerId, ...body });

    it('gives each suffix its status, on a US account number, an IBAN, a CLABE and an email PIX key alike', async () => {
      const expected: [string, string, string | undefined][] = [
        ['102', 'NOT_MATCHED', undefined],
        ['103', 'PARTIAL_MATCH', 'J. Doe'],
        ['106', 'UNSUPPORTED', undefined],
        ['107', 'CHECKED_BY_RECEIVING_FI', undefined],
        ['101', 'MATCHED', 'John Doe'],
        ['000', 'MATCHED', 'John Doe'],
      ];
      for (const [suffix, status, verifiedName] of expected) {
        const bodies = [
          usdAccount(`5500${suffix}`),
          { ...eurAccount(ibanEndingIn(suffix)), accountInfo: { ...eurAccount(ibanEndingIn(suffix)).accountInfo, beneficiary: individual('John Doe', { countryOfResidence: 'DE' }) } },
          { currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: clabeEndingIn(suffix), beneficiary: individual('John Doe') } },
          { currency: 'BRL', accountInfo: { accountType: 'BRL_ACCOUNT', pixKey: `john.${suffix}@example.com.br`, pixKeyType: 'EMAIL', taxId: '52998224725', beneficiary: individual('John Doe') } },
        ];
        for (const body of bodies) {
          const res = await post(body);
          expect(res.statusCode, `${suffix} ${res.body}`).toBe(201);
          const account = res.json();
          expect(account.beneficiaryVerificationStatus, `${suffix} ${body.accountInfo.accountType}`).toBe(status);
          expect(account.beneficiaryVerifiedData?.fullName).toBe(verifiedName);
          expect(account.status).toBe('ACTIVE');
        }
      }
    });

    it('refuses an account whose identifier ends in 105 with 400 INVALID_BANK_ACCOUNT naming the identifier, and creates nothing', async () => {
      const before = (await ctx.caller.req('GET', `/customers/external-accounts?customerId=${customerId}&limit=1`)).json().totalCount;
      for (const [body, field] of [
        [usdAccount('7700105'), 'accountInfo.accountNumber'],
        [eurAccount(ibanEndingIn('105')), 'accountInfo.iban'],
        [{ currency: 'KES', accountInfo: { accountType: 'KES_ACCOUNT', phoneNumber: '+254712345105', provider: 'M-PESA', beneficiary: individual() } }, 'accountInfo.phoneNumber'],
      ] as const) {
        const res = await post(body);
        const err = expectErrorObject(res, field);
        expect(err.status).toBe(400);
        expect(err.code).toBe('INVALID_BANK_ACCOUNT');
        expect((err.details!.errors as { field: string }[]).map((e) => e.field)).toEqual([field]);
      }
      expect((await ctx.caller.req('GET', `/customers/external-accounts?customerId=${customerId}&limit=1`)).json().totalCount).toBe(before);
    });

    it('keeps a 104 account PENDING, then makes it MATCHED and ACTIVE with a verified EXTERNAL_ACCOUNT.STATUS_UPDATED', async () => {
      const created = (await post(usdAccount('8800104'))).json();
      expect(created).toMatchObject({ status: 'PENDING', beneficiaryVerificationStatus: 'PENDING' });
      expect(created.beneficiaryVerifiedData).toBeUndefined();
      const events = () => ctx.receiver.verifiedUnique().filter((d) => d.payload?.type === 'EXTERNAL_ACCOUNT.STATUS_UPDATED' && (d.payload.data as { id: string }).id === created.id);
      await ctx.receiver.waitFor(() => events().length === 1);
      const now = (await ctx.caller.req('GET', `/customers/external-accounts/${created.id}`)).json();
      expect(now).toMatchObject({ status: 'ACTIVE', beneficiaryVerificationStatus: 'MATCHED', beneficiaryVerifiedData: { fullName: 'John Doe' } });
      expect(events()[0]!.payload!.data).toEqual(now);
      expect(events()[0]!.verified).toBe(true);
    });

    it('leaves wallets without a verification status, whatever their address ends in', async () => {
      const res = await post({ currency: 'USDC', accountInfo: { accountType: 'ETHEREUM_WALLET', address: '0x000000000000000000000000000000000000b105' } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().beneficiaryVerificationStatus).toBeUndefined();
    });

    it('answers UNSUPPORTED in production, where no rail is asked, and honours no suffix there', async () => {
      const production = await t.newCaller('production', ctx.caller);
      const prodCustomer = (await production.req('POST', '/customers', { customerType: 'INDIVIDUAL' })).json().id;
      for (const suffix of ['105', '102']) {
        const res = await production.req('POST', '/customers/external-accounts', { customerId: prodCustomer, ...usdAccount(`3300${suffix}`) });
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json()).toMatchObject({ status: 'ACTIVE', beneficiaryVerificationStatus: 'UNSUPPORTED' });
      }
    });
  },
  { SANDBOX_EXTERNAL_ACCOUNT_REVIEW_DELAY_MS: String(DELAY_MS) },
);
