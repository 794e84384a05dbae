import { NotImplementedError, type FieldError } from '../shared/errors.js';

/** The config fields of the interface this service stores and returns without acting on them. */

export const TRANSACTION_TYPES = ['INCOMING', 'OUTGOING'] as const;
export const FEE_TYPES = ['CROSS_CURRENCY_TRANSACTION'] as const;

export interface CounterpartyField {
  name: string;
  mandatory: boolean;
}

export interface CurrencyConfig {
  currencyCode: string;
  minAmount: number;
  maxAmount: number;
  requiredCounterpartyFields: CounterpartyField[];
  enabledTransactionTypes: (typeof TRANSACTION_TYPES)[number][];
  /** Read-only in the interface (the provider sets them); accepted on input and dropped. */
  providerRequiredCustomerFields?: string[];
  providerRequiredCounterpartyCustomerFields?: string[];
}

export interface FeeConfig {
  feeType: (typeof FEE_TYPES)[number];
  sourceCurrency: string;
  variableFeeBps: number;
  fixedFee: { amount: number; currency: string };
}

/** Nested settings objects (embedded wallet, card tokenization 2FA): merged field by field. */
export type SettingsObject = { [key: string]: unknown };

/** The only fee source currency the interface implements today; others are 501 NOT_IMPLEMENTED. */
export const FEE_SOURCE_CURRENCIES = ['USD'];

/** What the platform asked for, keeping only the fields it may set (read-only ones are dropped). */
export function storedCurrencies(currencies: CurrencyConfig[]): CurrencyConfig[] {
  return currencies.map(({ currencyCode, minAmount, maxAmount, requiredCounterpartyFields, enabledTransactionTypes }) => ({
    currencyCode,
    minAmount,
    maxAmount,
    requiredCounterpartyFields,
    enabledTransactionTypes,
  }));
}

/** Rules the schema cannot state: min not above max, one entry per currency, one per counterparty field. */
export function currencyErrors(currencies: CurrencyConfig[]): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  currencies.forEach((c, i) => {
    const at = `supportedCurrencies[${i}]`;
    if (c.minAmount > c.maxAmount) errors.push({ field: `${at}.maxAmount`, message: `must be at least minAmount (${c.minAmount})` });
    const first = seen.get(c.currencyCode);
    if (first !== undefined) errors.push({ field: `${at}.currencyCode`, message: `${c.currencyCode} is already configured by supportedCurrencies[${first}]` });
    else seen.set(c.currencyCode, i);
    const names = c.requiredCounterpartyFields.map((f) => f.name);
    const repeated = names.find((n, j) => names.indexOf(n) !== j);
    if (repeated) errors.push({ field: `${at}.requiredCounterpartyFields`, message: `names ${repeated} more than once` });
  });
  return errors;
}

const feeKey = (f: FeeConfig) => `${f.feeType}:${f.sourceCurrency}`;

export function feeConfigErrors(fees: FeeConfig[]): FieldError[] {
  const seen = new Map<string, number>();
  const errors: FieldError[] = [];
  fees.forEach((f, i) => {
    const first = seen.get(feeKey(f));
    if (first !== undefined) errors.push({ field: `feeConfigs[${i}]`, message: `repeats the feeType and sourceCurrency of feeConfigs[${first}]` });
    else seen.set(feeKey(f), i);
  });
  return errors;
}

/**
 * Upserts fee configs by (feeType, sourceCurrency); one whose variable and fixed fees are both 0
 * removes the config it names. Throws NotImplementedError for a source currency the interface does not take.
 */
export function mergeFeeConfigs(current: FeeConfig[], changes: FeeConfig[]): FeeConfig[] {
  const unsupported = changes.find((f) => !FEE_SOURCE_CURRENCIES.includes(f.sourceCurrency));
  if (unsupported) {
    throw new NotImplementedError(`Fee configs with sourceCurrency ${unsupported.sourceCurrency} are not implemented; only ${FEE_SOURCE_CURRENCIES.join(', ')} is`);
  }
  const byKey = new Map(current.map((f) => [feeKey(f), f]));
  for (const change of changes) {
    if (change.variableFeeBps === 0 && change.fixedFee.amount === 0) byKey.delete(feeKey(change));
    else byKey.set(feeKey(change), change);
  }
  return [...byKey.values()];
}

const isObject = (v: unknown): v is SettingsObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields given replace those stored, nested objects field by field; fields left out stay as they are. */
export function mergeSettings(current: SettingsObject | undefined, patch: SettingsObject): SettingsObject {
  const out: SettingsObject = { ...current };
  for (const [key, value] of Object.entries(patch)) out[key] = isObject(value) && isObject(out[key]) ? mergeSettings(out[key], value) : value;
  return out;
}
