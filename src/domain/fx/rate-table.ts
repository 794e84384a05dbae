import { currencyOf, KNOWN_CURRENCIES, type Currency } from '../shared/currencies.js';
import { divide, multiply, ONE, parseDecimal, type ExactRate } from './exact-rate.js';

/**
 * The sandbox's mid-market prices: US dollars for one unit of each currency, exact decimals. Fixed,
 * so every run and every platform sees the same rates (docs/quotes.md lists them).
 */
export const SANDBOX_USD_PRICES: Readonly<Record<string, string>> = {
  USD: '1', EUR: '1.08', GBP: '1.27', MXN: '0.058', BRL: '0.18', CAD: '0.73', DKK: '0.145', INR: '0.012', NGN: '0.00065',
  PHP: '0.0175', HKD: '0.128', SGD: '0.74', COP: '0.00025', ARS: '0.001', IDR: '0.000063', MYR: '0.21', THB: '0.028',
  VND: '0.00004', AED: '0.2723', KES: '0.0077', MWK: '0.00058', RWF: '0.00075', TZS: '0.00038', UGX: '0.00027',
  XOF: '0.00165', XAF: '0.00165', ZAR: '0.055', ZMW: '0.037', BWP: '0.074', BDT: '0.0083', EGP: '0.02', GHS: '0.065',
  GTQ: '0.13', HTG: '0.0076', JMD: '0.0064', PKR: '0.0036', CNY: '0.138', BTC: '60000', USDC: '1', USDT: '1',
};

/** Grid's margin on a cross-currency rate, in basis points against the sender; none within one currency. */
export const SANDBOX_SPREAD_BPS = 50n;

/** Crypto assets: sources and quote destinations, but no payment rail for GET /exchange-rates. */
export const CRYPTO_CURRENCIES = new Set(['BTC', 'USDC', 'USDT']);

/** The rail a destination currency is paid over in the sandbox (the document's PaymentRail). */
const RAILS: Readonly<Record<string, string>> = {
  USD: 'RTP', EUR: 'SEPA_INSTANT', GBP: 'FASTER_PAYMENTS', MXN: 'SPEI', BRL: 'PIX', INR: 'UPI', PHP: 'INSTAPAY', SGD: 'PAYNOW',
  DKK: 'SEPA_INSTANT', COP: 'BRE_B', CNY: 'UNIONPAY', CAD: 'WIRE',
};

export const railOf = (code: string): string => RAILS[code] ?? 'BANK_TRANSFER';

/** Every currency with a sandbox rate, in the currency table's order. */
export const RATED_CURRENCIES: readonly Currency[] = KNOWN_CURRENCIES.filter((c) => c.code in SANDBOX_USD_PRICES);

export const isRated = (code: string): boolean => code in SANDBOX_USD_PRICES;

const usdPrice = (code: string): ExactRate => {
  const price = SANDBOX_USD_PRICES[code];
  if (price === undefined) throw new Error(`no sandbox rate for ${code}`);
  return parseDecimal(price);
};

/** Receiving units for one sending unit at mid-market, before the spread. */
export const midRate = (from: string, to: string): ExactRate => (from === to ? ONE : divide(usdPrice(from), usdPrice(to)));

/** Receiving units for one sending unit as quoted: the mid-market rate less the spread (none within one currency). */
export function tableRate(from: string, to: string): ExactRate {
  if (from === to) return ONE;
  return multiply(midRate(from, to), { num: 10_000n - SANDBOX_SPREAD_BPS, den: 10_000n });
}

/** The sending limits of a currency: one US dollar's worth (rounded up) to 100,000 US dollars' worth (rounded down), in minor units. */
export function sendingLimits(code: string): { min: number; max: number } {
  const scale = 10n ** BigInt(currencyOf(code).decimals);
  const perUsd = midRate('USD', code);
  const min = (perUsd.num * scale + perUsd.den - 1n) / perUsd.den;
  const max = (100_000n * perUsd.num * scale) / perUsd.den;
  return { min: Number(min < 1n ? 1n : min), max: Number(max) };
}
