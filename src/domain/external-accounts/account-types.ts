/** Every accountType of the Grid document's external account variants. */
export const ACCOUNT_TYPES = [
  'AED_ACCOUNT', 'BDT_ACCOUNT', 'BRL_ACCOUNT', 'BWP_ACCOUNT', 'CAD_ACCOUNT', 'CNY_ACCOUNT', 'COP_ACCOUNT', 'DKK_ACCOUNT', 'EGP_ACCOUNT',
  'EUR_ACCOUNT', 'GBP_ACCOUNT', 'GHS_ACCOUNT', 'GTQ_ACCOUNT', 'HKD_ACCOUNT', 'HTG_ACCOUNT', 'IDR_ACCOUNT', 'INR_ACCOUNT', 'JMD_ACCOUNT',
  'KES_ACCOUNT', 'MWK_ACCOUNT', 'MXN_ACCOUNT', 'MYR_ACCOUNT', 'NGN_ACCOUNT', 'PHP_ACCOUNT', 'PKR_ACCOUNT', 'RWF_ACCOUNT', 'SGD_ACCOUNT',
  'SLV_ACCOUNT', 'THB_ACCOUNT', 'TZS_ACCOUNT', 'UGX_ACCOUNT', 'USD_ACCOUNT', 'VND_ACCOUNT', 'XAF_ACCOUNT', 'XOF_ACCOUNT', 'ZAR_ACCOUNT',
  'ZMW_ACCOUNT', 'SWIFT_ACCOUNT', 'BASE_WALLET', 'ETHEREUM_WALLET', 'LIGHTNING', 'POLYGON_WALLET', 'PLASMA_WALLET', 'SOLANA_WALLET',
  'SPARK_WALLET', 'TRON_WALLET',
] as const;

export type AccountType = (typeof ACCOUNT_TYPES)[number];

const MOBILE = ['MOBILE_MONEY'] as const;
const BANK = ['BANK_TRANSFER'] as const;
const BANK_OR_MOBILE = ['BANK_TRANSFER', 'MOBILE_MONEY'] as const;
const SEPA = ['SEPA', 'SEPA_INSTANT'] as const;

/** The payment rails each bank account type reaches (accountInfo.paymentRails); wallets have none. */
export const PAYMENT_RAILS = {
  AED_ACCOUNT: BANK, BDT_ACCOUNT: BANK_OR_MOBILE, BRL_ACCOUNT: ['PIX'], BWP_ACCOUNT: MOBILE, CAD_ACCOUNT: BANK, CNY_ACCOUNT: BANK_OR_MOBILE,
  COP_ACCOUNT: BANK_OR_MOBILE, DKK_ACCOUNT: SEPA, EGP_ACCOUNT: BANK_OR_MOBILE, EUR_ACCOUNT: SEPA, GBP_ACCOUNT: ['FASTER_PAYMENTS'],
  GHS_ACCOUNT: BANK_OR_MOBILE, GTQ_ACCOUNT: BANK, HKD_ACCOUNT: BANK, HTG_ACCOUNT: MOBILE, IDR_ACCOUNT: BANK, INR_ACCOUNT: ['UPI', 'NEFT', 'RTGS'],
  JMD_ACCOUNT: BANK, KES_ACCOUNT: MOBILE, MWK_ACCOUNT: MOBILE, MXN_ACCOUNT: ['SPEI'], MYR_ACCOUNT: BANK, NGN_ACCOUNT: BANK, PHP_ACCOUNT: BANK,
  PKR_ACCOUNT: BANK_OR_MOBILE, RWF_ACCOUNT: MOBILE, SGD_ACCOUNT: ['PAYNOW', 'FAST', 'BANK_TRANSFER'], SLV_ACCOUNT: BANK_OR_MOBILE, THB_ACCOUNT: BANK,
  TZS_ACCOUNT: MOBILE, UGX_ACCOUNT: MOBILE, USD_ACCOUNT: ['ACH', 'WIRE', 'RTP', 'FEDNOW'], VND_ACCOUNT: BANK, XAF_ACCOUNT: MOBILE, XOF_ACCOUNT: MOBILE,
  ZAR_ACCOUNT: BANK, ZMW_ACCOUNT: MOBILE, SWIFT_ACCOUNT: ['SWIFT'],
} as const satisfies Partial<Record<AccountType, readonly string[]>>;

export type BankAccountType = keyof typeof PAYMENT_RAILS;

export function isBankAccount(type: AccountType): type is BankAccountType {
  return type in PAYMENT_RAILS;
}

/** Self-custody crypto wallets: the accounts ownership verification applies to (LIGHTNING is a payment address, not a wallet). */
export function isWallet(type: AccountType): boolean {
  return type.endsWith('_WALLET');
}

/**
 * The currency a bank account type holds: the one its name starts with (SWIFT_ACCOUNT: any);
 * undefined for wallets, which hold what their network carries.
 */
export function currencyOf(type: AccountType): string | undefined {
  return isBankAccount(type) && type !== 'SWIFT_ACCOUNT' ? type.slice(0, 3) : undefined;
}

/**
 * The field that names the account, whose last three digits choose sandbox outcomes: the first of
 * these the account has (accountNumber before phoneNumber, iban before accountNumber on SWIFT, ...).
 */
const PRIMARY_FIELDS: Partial<Record<AccountType, readonly string[]>> = {
  BRL_ACCOUNT: ['pixKey'],
  MXN_ACCOUNT: ['clabeNumber'],
  AED_ACCOUNT: ['iban'],
  DKK_ACCOUNT: ['iban'],
  EUR_ACCOUNT: ['iban'],
  EGP_ACCOUNT: ['iban', 'accountNumber', 'phoneNumber'],
  PKR_ACCOUNT: ['iban', 'accountNumber', 'phoneNumber'],
  SWIFT_ACCOUNT: ['iban', 'accountNumber'],
  INR_ACCOUNT: ['accountNumber', 'vpa'],
  LIGHTNING: ['lightningAddress', 'invoice', 'bolt12'],
};
const DEFAULT_PRIMARY = ['accountNumber', 'phoneNumber', 'address'] as const;

export function primaryField(info: AccountInfo): string | undefined {
  return (PRIMARY_FIELDS[info.accountType] ?? DEFAULT_PRIMARY).find((f) => typeof info[f] === 'string');
}

/** The primary identifier's value (undefined for an account that has none, such as a LIGHTNING account with no field). */
export function primaryIdentifier(info: AccountInfo): string | undefined {
  const field = primaryField(info);
  return field === undefined ? undefined : (info[field] as string);
}

/**
 * The last three digits of an identifier, the sandbox's test suffix: of the part before the `@` when
 * it has a domain part (an email PIX key, a UPI address, a lightning address); undefined when that
 * part does not end in three digits.
 */
export function testSuffix(identifier: string): string | undefined {
  const local = identifier.includes('@') ? identifier.slice(0, identifier.lastIndexOf('@')) : identifier;
  return /([0-9]{3})$/.exec(local)?.[1];
}

/** accountInfo as the domain sees it: the variant's fields, by name. */
export type AccountInfo = { accountType: AccountType } & Record<string, unknown>;
