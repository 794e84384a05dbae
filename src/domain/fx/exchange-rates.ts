import { findRateOverride, listRateOverrides, upsertRateOverride } from '../../store/quotes-repo.js';
import type { Executor, Store } from '../../store/store.js';
import { findWebhookConfig } from '../../store/webhooks-repo.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import type { CurrencyConfig, FeeConfig } from '../platform/platform-config-fields.js';
import { currencyOf, type Currency } from '../shared/currencies.js';
import { PaymentRefusedError, ValidationError, type FieldError } from '../shared/errors.js';
import { convert, withinSafeIntegers, type SendingFee } from './conversion.js';
import { invert, isDecimalRate, parseDecimal, toDecimalString, type ExactRate } from './exact-rate.js';
import { CRYPTO_CURRENCIES, isRated, railOf, RATED_CURRENCIES, sendingLimits, tableRate } from './rate-table.js';

/** A corridor's rate: exact for the arithmetic, and as the interface shows it. */
export interface CorridorRate {
  /** Receiving units per sending unit. */
  rate: ExactRate;
  /** The interface's exchangeRate: sending units per receiving unit, a decimal string. */
  exchangeRate: string;
}

export interface ExchangeRate {
  sourceCurrency: Currency;
  sendingAmount: number;
  minSendingAmount: number;
  maxSendingAmount: number;
  destinationCurrency: Currency;
  destinationPaymentRail: string;
  receivingAmount: number;
  exchangeRate: number;
  fees: { fixed: number; total: number };
  updatedAt: string;
}

export interface ExchangeRateQuery {
  sourceCurrency?: string | undefined;
  destinationCurrency?: string[] | undefined;
  sendingAmount?: number | undefined;
}

const DEFAULT_SENDING_AMOUNT = 10_000;
export const CROSS_CURRENCY_FEE = 'CROSS_CURRENCY_TRANSACTION';

const displayOf = (rate: ExactRate): string => toDecimalString(invert(rate), 10);

/** The sandbox's exchange rates: the fixed table with its spread, unless the platform set a corridor's rate. */
export class ExchangeRateService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  /** The rate of one corridor for this platform: the one it set, else the table's with its spread. */
  async corridorRate(db: Executor, platformId: string, from: string, to: string): Promise<CorridorRate> {
    const set = await findRateOverride(db, platformId, from, to);
    if (set) return { rate: invert(parseDecimal(set.exchange_rate)), exchangeRate: set.exchange_rate };
    const rate = tableRate(from, to);
    return { rate, exchangeRate: displayOf(rate) };
  }

  /** The platform's cross-currency fee on a sending currency (its feeConfigs); none when it configured none. */
  async sendingFee(db: Executor, platformId: string, sendingCurrency: string): Promise<SendingFee> {
    const row = await findWebhookConfig(db, platformId);
    const fees = row?.fee_configs ? (JSON.parse(row.fee_configs) as FeeConfig[]) : [];
    const fee = fees.find((f) => f.feeType === CROSS_CURRENCY_FEE && f.sourceCurrency === sendingCurrency);
    return fee ? { fixed: BigInt(fee.fixedFee.amount), variableBps: BigInt(fee.variableFeeBps) } : { fixed: 0n, variableBps: 0n };
  }

  /** A currency's sending limits: the platform's supportedCurrencies entry for it, else the sandbox's (one to 100,000 US dollars' worth). */
  async limits(db: Executor, platformId: string, code: string): Promise<{ min: number; max: number }> {
    const row = await findWebhookConfig(db, platformId);
    const configured = row?.supported_currencies ? (JSON.parse(row.supported_currencies) as CurrencyConfig[]).find((c) => c.currencyCode === code) : undefined;
    return configured ? { min: configured.minAmount, max: configured.maxAmount } : sendingLimits(code);
  }

  /** GET /exchange-rates: every corridor from the source currencies asked (all by default) to the fiat destinations asked. */
  async list(platformId: string, query: ExchangeRateQuery): Promise<{ data: ExchangeRate[] }> {
    const errors: FieldError[] = [];
    if (query.sourceCurrency !== undefined && !isRated(query.sourceCurrency)) errors.push({ field: 'sourceCurrency', message: 'has no sandbox exchange rate' });
    (query.destinationCurrency ?? []).forEach((code, i) => {
      if (!isRated(code) || CRYPTO_CURRENCIES.has(code)) errors.push({ field: `destinationCurrency[${i}]`, message: 'is not a fiat currency with a sandbox exchange rate' });
    });
    if (errors.length > 0) throw new ValidationError(errors);
    const { db } = this.store;
    const sources = query.sourceCurrency !== undefined ? [query.sourceCurrency] : RATED_CURRENCIES.map((c) => c.code);
    const wanted = query.destinationCurrency !== undefined && query.destinationCurrency.length > 0 ? new Set(query.destinationCurrency) : undefined;
    const destinations = RATED_CURRENCIES.filter((c) => !CRYPTO_CURRENCIES.has(c.code) && (wanted === undefined || wanted.has(c.code))).map((c) => c.code);
    const sendingAmount = query.sendingAmount ?? DEFAULT_SENDING_AMOUNT;
    const now = await this.clock.now(platformId);
    const set = new Map((await listRateOverrides(db, platformId)).map((o) => [`${o.source_currency}>${o.destination_currency}`, o]));
    const data: ExchangeRate[] = [];
    for (const from of sources) {
      const fee = await this.sendingFee(db, platformId, from);
      const limits = await this.limits(db, platformId, from);
      const source = currencyOf(from);
      for (const to of destinations) {
        if (to === from) continue;
        const override = set.get(`${from}>${to}`);
        const rate = override ? invert(parseDecimal(override.exchange_rate)) : tableRate(from, to);
        const destination = currencyOf(to);
        const conversion = convert('SENDING', BigInt(sendingAmount), rate, source.decimals, destination.decimals, fee);
        if (conversion && !withinSafeIntegers(conversion)) throw new PaymentRefusedError('AMOUNT_OUT_OF_RANGE', `sendingAmount converts to more ${to} minor units than an amount can hold`, [{ field: 'sendingAmount', message: 'is too large to convert exactly' }]);
        data.push({
          sourceCurrency: source,
          sendingAmount,
          minSendingAmount: limits.min,
          maxSendingAmount: limits.max,
          destinationCurrency: destination,
          destinationPaymentRail: railOf(to),
          receivingAmount: Number(conversion?.totalReceiving ?? 0n),
          exchangeRate: Number(override ? override.exchange_rate : displayOf(rate)),
          fees: { fixed: Number(fee.fixed), total: Number(conversion?.fees ?? BigInt(sendingAmount)) },
          updatedAt: new Date(override ? Number(override.updated_at) : now).toISOString(),
        });
      }
    }
    return { data };
  }

  /** PUT /sandbox/exchange-rates/{from}/{to}: this platform's rate for one corridor from now on, used as given (no spread). */
  async setSandboxRate(platformId: string, from: string, to: string, exchangeRate: string): Promise<{ sourceCurrency: Currency; destinationCurrency: Currency; exchangeRate: number; updatedAt: string }> {
    const errors: FieldError[] = [];
    if (!isRated(from)) errors.push({ field: 'sourceCurrency', message: 'has no sandbox exchange rate' });
    if (!isRated(to)) errors.push({ field: 'destinationCurrency', message: 'has no sandbox exchange rate' });
    if (errors.length > 0) throw new PaymentRefusedError('INVALID_CURRENCY', errors.length === 1 ? `Invalid ${errors[0]!.field}: ${errors[0]!.message}` : 'Both currencies lack a sandbox exchange rate', errors);
    if (from === to) throw new ValidationError([{ field: 'destinationCurrency', message: 'must differ from sourceCurrency: within one currency the rate is 1' }]);
    if (!isDecimalRate(exchangeRate)) throw new ValidationError([{ field: 'exchangeRate', message: 'must be a decimal greater than 0 with at most 12 digits each side of the point' }]);
    const now = await this.clock.now(platformId);
    await upsertRateOverride(this.store.db, { platform_id: platformId, source_currency: from, destination_currency: to, exchange_rate: exchangeRate, updated_at: now });
    return { sourceCurrency: currencyOf(from), destinationCurrency: currencyOf(to), exchangeRate: Number(exchangeRate), updatedAt: new Date(now).toISOString() };
  }
}
