import { Type, type Static, type TObject, type TProperties } from 'typebox';
import { ACCOUNT_TYPES, isBankAccount, PAYMENT_RAILS, type AccountType } from '../domain/external-accounts/account-types.js';
import { AddressSchema, CountryCodeSchema, EmailSchema, PhoneNumberSchema, text } from './fields.js';

// The accountInfo variants of the Grid document, one per accountType, each with the document's required fields and patterns.

const str = (options: { pattern?: string; minLength?: number; maxLength?: number; description?: string }) => Type.String(options);
const accountNumber = str({ minLength: 1, maxLength: 34 });
const digits = (n: number, description?: string) => str({ pattern: `^[0-9]{${n}}$`, minLength: n, maxLength: n, ...(description ? { description } : {}) });
const bankName = str({ minLength: 1, maxLength: 255 });
const swiftCode = str({ pattern: '^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$', minLength: 8, maxLength: 11, description: 'BIC' });
const mobile = (pattern = '^\\+[0-9]{6,14}$') => str({ pattern, minLength: 7, maxLength: 15 });
const provider = str({ minLength: 1, maxLength: 255, description: 'Mobile money provider' });
const bankAccountType = Type.Enum(['CHECKING', 'SAVINGS']);
const iban = (pattern: string, length: number) => str({ pattern, minLength: length, maxLength: length, description: 'IBAN, checked with its mod-97 check digits' });
const anyIban = str({ pattern: '^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$', minLength: 15, maxLength: 34, description: 'IBAN, checked with its mod-97 check digits' });
const region = (codes: string[]) => Type.Enum(codes, { description: 'ISO 3166-1 alpha-2 country of the mobile money account' });

const PERSON = {
  fullName: text(200),
  birthDate: Type.String({ format: 'date' }),
  nationality: CountryCodeSchema('ISO 3166-1 alpha-2'),
  email: EmailSchema,
  phoneNumber: PhoneNumberSchema,
  countryOfResidence: CountryCodeSchema('ISO 3166-1 alpha-2'),
  address: AddressSchema,
};
type PersonField = keyof typeof PERSON;

/** An individual beneficiary: fullName required, plus `required` of the other fields, plus `extra` ones. */
function individual(required: PersonField[] = [], extra: TProperties = {}) {
  const props: TProperties = { beneficiaryType: Type.Literal('INDIVIDUAL') };
  for (const [name, schema] of Object.entries(PERSON)) props[name] = name === 'fullName' || required.includes(name as PersonField) ? schema : Type.Optional(schema);
  return Type.Object({ ...props, ...extra }, { additionalProperties: false });
}

export const BusinessBeneficiarySchema = Type.Object(
  {
    beneficiaryType: Type.Literal('BUSINESS'),
    legalName: text(200),
    registrationNumber: Type.Optional(text(100)),
    taxId: Type.Optional(text(100)),
    email: Type.Optional(EmailSchema),
    phoneNumber: Type.Optional(PhoneNumberSchema),
    countryOfResidence: Type.Optional(CountryCodeSchema('ISO 3166-1 alpha-2')),
    address: Type.Optional(AddressSchema),
  },
  { additionalProperties: false },
);

const WalletIndividualSchema = Type.Object(
  { beneficiaryType: Type.Literal('INDIVIDUAL'), fullName: text(200), countryOfResidence: CountryCodeSchema('ISO 3166-1 alpha-2') },
  { additionalProperties: false },
);

/** A union tagged by one property: `oneOf` with its `discriminator`, so the validator checks only the branch the tag names. */
export function tagged<T extends TObject[]>(propertyName: string, branches: [...T], description?: string) {
  return Type.Unsafe<Static<T[number]>>({ oneOf: branches, discriminator: { propertyName }, ...(description ? { description } : {}) });
}

const beneficiary = (person: TObject = individual()) => tagged('beneficiaryType', [person, BusinessBeneficiarySchema], 'INDIVIDUAL or BUSINESS');
const walletBeneficiary = Type.Optional(tagged('beneficiaryType', [WalletIndividualSchema, BusinessBeneficiarySchema], 'Who holds the wallet (travel rule)'));

const wallet = { address: text(200, 'Wallet address, checked for its network'), beneficiary: walletBeneficiary, vaspName: Type.Optional(text(200, 'The VASP hosting the wallet; absent for a self-custody wallet')) };

/** Per accountType, the fields the create request takes besides accountType (the document's *ExternalAccountCreateInfo). */
const FIELDS: Record<AccountType, TProperties> = {
  AED_ACCOUNT: { iban: iban('^AE[0-9]{21}$', 23), swiftCode: Type.Optional(swiftCode), beneficiary: beneficiary(individual(['address'])) },
  BDT_ACCOUNT: { accountNumber: Type.Optional(accountNumber), bankName, branchCode: Type.Optional(digits(5)), swiftCode: Type.Optional(swiftCode), phoneNumber: Type.Optional(mobile()), beneficiary: beneficiary() },
  BRL_ACCOUNT: {
    pixKey: str({ minLength: 1, maxLength: 77, description: 'Checked against pixKeyType: a valid CPF or CNPJ, an email, a +55 phone number or a random (UUID) key' }),
    pixKeyType: Type.Enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM']),
    taxId: str({ pattern: '^[0-9]{11,14}$', minLength: 11, maxLength: 14, description: 'CPF (11 digits) or CNPJ (14 digits), checked with its check digits' }),
    beneficiary: beneficiary(),
  },
  BWP_ACCOUNT: { phoneNumber: mobile(), provider, beneficiary: beneficiary() },
  CAD_ACCOUNT: { bankCode: digits(3), branchCode: digits(5), accountNumber: str({ pattern: '^[0-9]{7,12}$', minLength: 7, maxLength: 12 }), beneficiary: beneficiary(individual([], { registrationNumber: Type.Optional(text(100)) })) },
  CNY_ACCOUNT: { accountNumber: Type.Optional(accountNumber), bankName, phoneNumber: Type.Optional(mobile()), beneficiary: beneficiary() },
  COP_ACCOUNT: {
    accountNumber: Type.Optional(accountNumber),
    bankAccountType: Type.Optional(bankAccountType),
    bankName,
    phoneNumber: Type.Optional(mobile()),
    beneficiary: beneficiary(individual([], { documentType: Type.Optional(Type.Enum(['CC', 'CE', 'TI', 'NIT', 'PP'])), documentNumber: Type.Optional(str({ minLength: 1, maxLength: 50 })) })),
  },
  DKK_ACCOUNT: { iban: iban('^DK[0-9]{16}$', 18), swiftCode: Type.Optional(swiftCode), beneficiary: beneficiary() },
  EGP_ACCOUNT: { iban: Type.Optional(iban('^EG[0-9]{27}$', 29)), bankName, phoneNumber: Type.Optional(mobile()), beneficiary: beneficiary() },
  EUR_ACCOUNT: { iban: anyIban, swiftCode: Type.Optional(swiftCode), beneficiary: beneficiary(individual(['countryOfResidence'])) },
  GBP_ACCOUNT: { sortCode: digits(6), accountNumber: digits(8), beneficiary: beneficiary() },
  GHS_ACCOUNT: { accountNumber: Type.Optional(accountNumber), bankName, phoneNumber: Type.Optional(mobile()), beneficiary: beneficiary() },
  GTQ_ACCOUNT: { accountNumber, bankAccountType, bankName, beneficiary: beneficiary(individual(['countryOfResidence', 'phoneNumber'])) },
  HKD_ACCOUNT: { bankName, accountNumber, swiftCode, beneficiary: beneficiary() },
  HTG_ACCOUNT: { phoneNumber: mobile(), beneficiary: beneficiary() },
  IDR_ACCOUNT: { bankName, accountNumber, swiftCode, phoneNumber: mobile('^\\+62[0-9]{9,12}$'), beneficiary: beneficiary() },
  INR_ACCOUNT: {
    vpa: Type.Optional(str({ pattern: '^[a-zA-Z0-9.\\-_]+@[a-zA-Z0-9]+$', minLength: 3, maxLength: 255, description: 'UPI virtual payment address' })),
    accountNumber: Type.Optional(str({ pattern: '^[0-9]{9,18}$', minLength: 9, maxLength: 18 })),
    ifsc: Type.Optional(str({ pattern: '^[A-Z]{4}0[A-Z0-9]{6}$', minLength: 11, maxLength: 11 })),
    rail: Type.Optional(str({ minLength: 1, maxLength: 32 })),
    bankName: Type.Optional(bankName),
    beneficiary: beneficiary(),
  },
  JMD_ACCOUNT: { accountNumber, branchCode: digits(5), bankAccountType, bankName, beneficiary: beneficiary(individual(['address', 'phoneNumber'])) },
  KES_ACCOUNT: { phoneNumber: mobile('^\\+254[0-9]{9}$'), provider, beneficiary: beneficiary() },
  MWK_ACCOUNT: { phoneNumber: mobile(), provider, beneficiary: beneficiary() },
  MXN_ACCOUNT: { clabeNumber: digits(18, 'CLABE, checked with its check digit and bank code'), beneficiary: beneficiary() },
  MYR_ACCOUNT: { bankName, accountNumber, swiftCode, beneficiary: beneficiary() },
  NGN_ACCOUNT: { accountNumber: digits(10), bankName, beneficiary: beneficiary() },
  PHP_ACCOUNT: { bankName, accountNumber: str({ pattern: '^[0-9]{8,16}$', minLength: 8, maxLength: 16 }), beneficiary: beneficiary() },
  PKR_ACCOUNT: { bankName, accountNumber: Type.Optional(accountNumber), iban: Type.Optional(iban('^PK[0-9]{2}[A-Z]{4}[0-9]{16}$', 24)), phoneNumber: Type.Optional(mobile()), beneficiary: beneficiary() },
  RWF_ACCOUNT: { phoneNumber: mobile('^\\+250[0-9]{9}$'), provider, beneficiary: beneficiary() },
  SGD_ACCOUNT: { bankName: Type.Optional(bankName), accountNumber, swiftCode, beneficiary: beneficiary() },
  SLV_ACCOUNT: { bankName: Type.Optional(bankName), accountNumber: Type.Optional(accountNumber), bankAccountType: Type.Optional(bankAccountType), phoneNumber: Type.Optional(mobile()), beneficiary: beneficiary() },
  THB_ACCOUNT: { bankName, accountNumber, swiftCode, beneficiary: beneficiary() },
  TZS_ACCOUNT: { phoneNumber: mobile('^\\+255[0-9]{9}$'), provider, beneficiary: beneficiary() },
  UGX_ACCOUNT: { phoneNumber: mobile(), provider, beneficiary: beneficiary() },
  USD_ACCOUNT: {
    accountNumber,
    routingNumber: digits(9, 'ABA routing number, checked with its check digit'),
    bankName: Type.Optional(str({ minLength: 1, maxLength: 140 })),
    bankAccountType: Type.Optional(bankAccountType),
    intermediaryBankName: Type.Optional(str({ minLength: 1, maxLength: 140 })),
    intermediaryRoutingNumber: Type.Optional(digits(9, 'ABA routing number, checked with its check digit')),
    fiToFiInformation: Type.Optional(str({ maxLength: 210 })),
    beneficiary: beneficiary(),
  },
  VND_ACCOUNT: { bankName, accountNumber, swiftCode, beneficiary: beneficiary() },
  XAF_ACCOUNT: { phoneNumber: mobile(), provider, region: region(['CM', 'CG']), beneficiary: beneficiary() },
  XOF_ACCOUNT: { phoneNumber: mobile(), provider, region: region(['BJ', 'CI', 'SN', 'TG']), beneficiary: beneficiary() },
  ZAR_ACCOUNT: { accountNumber: str({ pattern: '^[0-9]{9,13}$', minLength: 9, maxLength: 13 }), bankName, beneficiary: beneficiary() },
  ZMW_ACCOUNT: { phoneNumber: mobile('^\\+260[0-9]{9}$'), provider, beneficiary: beneficiary() },
  SWIFT_ACCOUNT: { country: CountryCodeSchema('Country of the bank'), swiftCode, bankName, accountNumber: Type.Optional(accountNumber), iban: Type.Optional(anyIban), beneficiary: beneficiary() },
  BASE_WALLET: wallet,
  ETHEREUM_WALLET: wallet,
  POLYGON_WALLET: wallet,
  PLASMA_WALLET: wallet,
  SOLANA_WALLET: wallet,
  SPARK_WALLET: wallet,
  TRON_WALLET: wallet,
  LIGHTNING: {
    invoice: Type.Optional(text(2048, 'BOLT11 invoice, checked for its bech32 checksum')),
    bolt12: Type.Optional(text(2048, 'BOLT12 offer (lno1...)')),
    lightningAddress: Type.Optional(text(320, 'Lightning address, user@domain')),
  },
};

const variant = (type: AccountType, extra: TProperties, closed: boolean) =>
  Type.Object({ accountType: Type.Literal(type), ...FIELDS[type], ...extra }, { additionalProperties: !closed, title: type });

/** accountInfo of a create request: the variant its accountType names; a field the variant does not define is a 400. */
export const ExternalAccountCreateInfoSchema = tagged(
  'accountType',
  ACCOUNT_TYPES.map((t) => variant(t, {}, true)),
  'The account details; accountType selects the variant, and with it the required fields',
);

/** accountInfo as answered: the request's fields, plus the payment rails the account type reaches (bank accounts). */
export const ExternalAccountInfoSchema = tagged(
  'accountType',
  ACCOUNT_TYPES.map((t) => variant(t, isBankAccount(t) ? { paymentRails: Type.Array(Type.Enum([...PAYMENT_RAILS[t]] as string[]), { description: 'The rails this account can be paid on' }) } : {}, false)),
  'The account details as given at creation; bank accounts add paymentRails',
);
