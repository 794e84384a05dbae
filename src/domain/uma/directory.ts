import { currencyOf, type Currency } from '../shared/currencies.js';
import { ValidationError } from '../shared/errors.js';
import { SANDBOX_UMA_DOMAIN } from './sandbox-uma.js';

export interface UmaProvider {
  name: string;
  supportedRegions: string[];
  domain: string;
  logoUrl: string;
  supportedCurrencies: Currency[];
  lei: string;
  allowListStatus: boolean;
}

export interface Discovery {
  bankName: string;
  displayName: string;
  country: string;
  currency: string;
}

export interface Vasp {
  vaspName: string;
  url?: string;
}

const provider = (name: string, domain: string, regions: string[], currencies: string[], lei: string, allowListStatus: boolean): UmaProvider => ({
  name,
  supportedRegions: regions,
  domain,
  logoUrl: `https://${domain}/logo.png`,
  supportedCurrencies: currencies.map(currencyOf),
  lei,
  allowListStatus,
});

/** The sandbox's UMA providers, fixed: its own test domain and three fictitious ones on reserved names. */
export const SANDBOX_UMA_PROVIDERS: readonly UmaProvider[] = [
  provider('Sandbox UMA', SANDBOX_UMA_DOMAIN, ['US', 'MX', 'DE'], ['USD', 'EUR', 'MXN'], '5493000SANDBOXUMA001', true),
  provider('Example Wallet', 'wallet.example', ['US', 'GB'], ['USD', 'GBP'], '5493000EXAMPLEWAL002', true),
  provider('Remesas Ejemplo', 'remesas.example', ['MX', 'CO'], ['MXN', 'COP'], '5493000REMESASEJ003', false),
  provider('Pagos Teste', 'pagos.example', ['BR'], ['BRL'], '5493000PAGOSTEST004', true),
];

/** The sandbox's receiving institutions per corridor, fixed and fictitious (the bankName a sandbox external account takes). */
export const SANDBOX_DISCOVERIES: readonly Discovery[] = [
  { bankName: 'SANDBOX_BANK_PH', displayName: 'Sandbox Bank Philippines', country: 'PH', currency: 'PHP' },
  { bankName: 'SANDBOX_EWALLET_PH', displayName: 'Sandbox E-Wallet Philippines', country: 'PH', currency: 'PHP' },
  { bankName: 'SANDBOX_BANK_IN', displayName: 'Sandbox Bank India', country: 'IN', currency: 'INR' },
  { bankName: 'SANDBOX_BANK_MX', displayName: 'Sandbox Banco México', country: 'MX', currency: 'MXN' },
  { bankName: 'SANDBOX_BANK_NG', displayName: 'Sandbox Bank Nigeria', country: 'NG', currency: 'NGN' },
  { bankName: 'SANDBOX_MOBILE_KE', displayName: 'Sandbox Mobile Money Kenya', country: 'KE', currency: 'KES' },
  { bankName: 'SANDBOX_BANK_BR', displayName: 'Sandbox Banco Brasil', country: 'BR', currency: 'BRL' },
  { bankName: 'SANDBOX_BANK_GB', displayName: 'Sandbox Bank UK', country: 'GB', currency: 'GBP' },
  { bankName: 'SANDBOX_BANK_DE', displayName: 'Sandbox Bank Germany', country: 'DE', currency: 'EUR' },
  { bankName: 'SANDBOX_BANK_US', displayName: 'Sandbox Bank US', country: 'US', currency: 'USD' },
];

/** The sandbox's VASP directory, fixed and fictitious. */
export const SANDBOX_VASPS: readonly Vasp[] = [
  { vaspName: 'Sandbox Exchange', url: 'https://exchange.sandbox.invalid' },
  { vaspName: 'Example Custody', url: 'https://custody.example' },
  { vaspName: 'Test Markets', url: 'https://markets.example' },
  { vaspName: 'Demo Wallet Co' },
];

export interface OffsetPage<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount?: number;
}

/** A page of a fixed list; the cursor is the offset of the next item, as the previous page gave it. */
export function fixedPage<T>(items: readonly T[], limit: number, cursor: string | undefined): OffsetPage<T> {
  const start = cursor === undefined ? 0 : /^(0|[1-9]\d{0,5})$/.test(cursor) ? Number(cursor) : NaN;
  if (!Number.isInteger(start) || start > items.length) throw new ValidationError([{ field: 'cursor', message: 'is not a cursor of this list' }]);
  const data = items.slice(start, start + limit);
  const next = start + data.length;
  return next < items.length ? { data, hasMore: true, nextCursor: String(next) } : { data, hasMore: false };
}

export interface UmaProviderQuery {
  countryCode?: string | undefined;
  currencyCode?: string | undefined;
  hasBlockedProviders?: boolean | undefined;
  sortOrder?: 'asc' | 'desc' | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** GET /uma-providers: filtered by region and currency, blocked ones kept unless hasBlockedProviders=false; by name, desc by default. */
export function listUmaProviders(query: UmaProviderQuery): OffsetPage<UmaProvider> & { totalCount: number } {
  const matching = SANDBOX_UMA_PROVIDERS.filter(
    (p) =>
      (query.countryCode === undefined || p.supportedRegions.includes(query.countryCode)) &&
      (query.currencyCode === undefined || p.supportedCurrencies.some((c) => c.code === query.currencyCode)) &&
      (query.hasBlockedProviders !== false || p.allowListStatus),
  ).sort((a, b) => (query.sortOrder === 'asc' ? a.name.localeCompare(b.name) : b.name.localeCompare(a.name)));
  return { ...fixedPage(matching, query.limit ?? 20, query.cursor), totalCount: matching.length };
}

export function listDiscoveries(query: { country?: string | undefined; currency?: string | undefined }): { data: Discovery[] } {
  return { data: SANDBOX_DISCOVERIES.filter((d) => (query.country === undefined || d.country === query.country) && (query.currency === undefined || d.currency === query.currency)) };
}
