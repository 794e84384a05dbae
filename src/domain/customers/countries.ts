import countries from 'i18n-iso-countries';

const ALPHA2 = new Set(Object.keys(countries.getAlpha2Codes()));

/** True for an assigned ISO 3166-1 alpha-2 code, upper case, from a maintained list. */
export function isCountryCode(code: string): boolean {
  return ALPHA2.has(code);
}
