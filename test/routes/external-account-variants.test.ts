import { beforeAll, expect, it } from 'vitest';
import { ACCOUNT_TYPES } from '../../src/domain/external-accounts/account-types.js';
import { describeEachEngine } from '../helpers/test-app.js';

/** The Grid document's required accountInfo fields of each create variant, besides accountType. */
const REQUIRED: Record<string, string[]> = {
  AED_ACCOUNT: ['beneficiary', 'iban'],
  BDT_ACCOUNT: ['bankName', 'beneficiary'],
  BRL_ACCOUNT: ['beneficiary', 'pixKey', 'pixKeyType', 'taxId'],
  BWP_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider'],
  CAD_ACCOUNT: ['accountNumber', 'bankCode', 'beneficiary', 'branchCode'],
  CNY_ACCOUNT: ['bankName', 'beneficiary'],
  COP_ACCOUNT: ['bankName', 'beneficiary'],
  DKK_ACCOUNT: ['beneficiary', 'iban'],
  EGP_ACCOUNT: ['bankName', 'beneficiary'],
  EUR_ACCOUNT: ['beneficiary', 'iban'],
  GBP_ACCOUNT: ['accountNumber', 'beneficiary', 'sortCode'],
  GHS_ACCOUNT: ['bankName', 'beneficiary'],
  GTQ_ACCOUNT: ['accountNumber', 'bankAccountType', 'bankName', 'beneficiary'],
  HKD_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary', 'swiftCode'],
  HTG_ACCOUNT: ['beneficiary', 'phoneNumber'],
  IDR_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary', 'phoneNumber', 'swiftCode'],
  INR_ACCOUNT: ['beneficiary'],
  JMD_ACCOUNT: ['accountNumber', 'bankAccountType', 'bankName', 'beneficiary', 'branchCode'],
  KES_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider'],
  MWK_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider'],
  MXN_ACCOUNT: ['beneficiary', 'clabeNumber'],
  MYR_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary', 'swiftCode'],
  NGN_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary'],
  PHP_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary'],
  PKR_ACCOUNT: ['bankName', 'beneficiary'],
  RWF_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider'],
  SGD_ACCOUNT: ['accountNumber', 'beneficiary', 'swiftCode'],
  SLV_ACCOUNT: ['beneficiary'],
  THB_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary', 'swiftCode'],
  TZS_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider'],
  UGX_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider'],
  USD_ACCOUNT: ['accountNumber', 'beneficiary', 'routingNumber'],
  VND_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary', 'swiftCode'],
  XAF_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider', 'region'],
  XOF_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider', 'region'],
  ZAR_ACCOUNT: ['accountNumber', 'bankName', 'beneficiary'],
  ZMW_ACCOUNT: ['beneficiary', 'phoneNumber', 'provider'],
  SWIFT_ACCOUNT: ['bankName', 'beneficiary', 'country', 'swiftCode'],
  BASE_WALLET: ['address'],
  ETHEREUM_WALLET: ['address'],
  LIGHTNING: [],
  POLYGON_WALLET: ['address'],
  PLASMA_WALLET: ['address'],
  SOLANA_WALLET: ['address'],
  SPARK_WALLET: ['address'],
  TRON_WALLET: ['address'],
};

const currencyFor = (type: string) => (type.endsWith('_WALLET') ? 'USDC' : type === 'LIGHTNING' ? 'BTC' : type === 'SWIFT_ACCOUNT' ? 'USD' : type.slice(0, 3));
const fieldsOf = (body: { details?: { errors?: { field: string }[] } }) => (body.details?.errors ?? []).map((e) => e.field).sort();

describeEachEngine('external account variants: each accountType requires what the document requires', (t) => {
  let customerId: string;
  beforeAll(async () => {
    customerId = (await t.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL' })).json().id;
  });

  it('covers every accountType of the document', () => {
    expect([...ACCOUNT_TYPES].sort()).toEqual(Object.keys(REQUIRED).sort());
  });

  it('answers accountType alone with one 400 naming exactly its required fields (LIGHTNING requires none)', async () => {
    for (const type of ACCOUNT_TYPES) {
      const res = await t.caller.req('POST', '/customers/external-accounts', { customerId, currency: currencyFor(type), accountInfo: { accountType: type } });
      if (REQUIRED[type]!.length === 0) {
        expect(res.statusCode, `${type}: ${res.body}`).toBe(201);
        continue;
      }
      expect(res.statusCode, type).toBe(400);
      expect(fieldsOf(res.json()), type).toEqual(REQUIRED[type]!.map((f) => `accountInfo.${f}`).sort());
    }
  });

  it("requires each currency's extra beneficiary fields, and a wallet individual's country of residence", async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'A B' } } }, ['accountInfo.beneficiary.countryOfResidence']],
      [{ currency: 'AED', accountInfo: { accountType: 'AED_ACCOUNT', iban: 'AE070331234567890123456', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'A B' } } }, ['accountInfo.beneficiary.address']],
      [
        { currency: 'JMD', accountInfo: { accountType: 'JMD_ACCOUNT', accountNumber: '1', branchCode: '12345', bankAccountType: 'SAVINGS', bankName: 'NCB', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'A B' } } },
        ['accountInfo.beneficiary.address', 'accountInfo.beneficiary.phoneNumber'],
      ],
      [{ currency: 'USDC', accountInfo: { accountType: 'SOLANA_WALLET', address: '11111111111111111111111111111111', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'A B' } } }, ['accountInfo.beneficiary.countryOfResidence']],
      [{ currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '1', routingNumber: '021000021', beneficiary: { beneficiaryType: 'BUSINESS' } } }, ['accountInfo.beneficiary.legalName']],
      [{ currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '1', routingNumber: '021000021', beneficiary: { beneficiaryType: 'TRUST', fullName: 'A' } } }, ['accountInfo.beneficiary.beneficiaryType']],
    ];
    for (const [body, fields] of cases) {
      const res = await t.caller.req('POST', '/customers/external-accounts', { customerId, ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res.json())).toEqual(fields);
    }
  });

  it("checks each variant's patterns and enums: a region outside XOF's, a phone outside Kenya's, an IFSC", async () => {
    const res = await t.caller.req('POST', '/customers/external-accounts', {
      customerId,
      currency: 'XOF',
      accountInfo: { accountType: 'XOF_ACCOUNT', phoneNumber: '+22100000000', provider: 'Orange', region: 'CM', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'A B' } },
    });
    expect(fieldsOf(res.json())).toEqual(['accountInfo.region']);
    const kes = await t.caller.req('POST', '/customers/external-accounts', { customerId, currency: 'KES', accountInfo: { accountType: 'KES_ACCOUNT', phoneNumber: '+255712345678', provider: 'M-PESA', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'A' } } });
    expect(fieldsOf(kes.json())).toEqual(['accountInfo.phoneNumber']);
    const inr = await t.caller.req('POST', '/customers/external-accounts', { customerId, currency: 'INR', accountInfo: { accountType: 'INR_ACCOUNT', accountNumber: '123456789', ifsc: 'HDFC1234567', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'A' } } });
    expect(fieldsOf(inr.json())).toEqual(['accountInfo.ifsc']);
  });
});
