import { findAccount } from '../../store/accounts-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import { findExternalAccount } from '../../store/external-accounts-repo.js';
import { findPlatformAccount } from '../../store/platform-accounts-repo.js';
import { findQuote, insertQuote } from '../../store/quotes-repo.js';
import type { Executor, Store } from '../../store/store.js';
import type { QuoteRow } from '../../store/tables/quotes.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { fundingInstructionsOf } from '../accounts/funding-instructions.js';
import { convert, withinSafeIntegers, type LockedSide } from '../fx/conversion.js';
import type { ExchangeRateService } from '../fx/exchange-rates.js';
import { isRated } from '../fx/rate-table.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { currencyOf } from '../shared/currencies.js';
import { lookupableId, NotFoundError, PaymentRefusedError, ValidationError, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { umaReceiverCurrencies } from '../uma/receivers.js';
import { umaCustomerRecipient } from '../payments/internal-recipients.js';
import { renderQuote, type Quote, type QuoteDestination, type QuoteSource } from './render.js';

export type { QuoteDestination, QuoteSource } from './render.js';

/** How long a quote's rate holds, on the platform's clock (the document's instant rails: 1 to 5 minutes). */
export const QUOTE_TTL_MS = 5 * 60 * 1000;


export interface CreateQuoteInput {
  lookupId?: string;
  source: QuoteSource;
  destination: QuoteDestination;
  lockedCurrencySide: LockedSide;
  lockedCurrencyAmount: number;
  immediatelyExecute?: boolean;
  description?: string;
  [more: string]: unknown;
}

interface Side {
  currency: string;
  customerId?: string | undefined;
}

const asRecord = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Cross-currency quotes: created with their amounts locked, read back with their status on the platform's clock. */
export class QuoteService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly rates: ExchangeRateService,
  ) {}

  /**
   * The ids in a body (one that failed the schema too) that name nothing of this platform: the
   * source's internal account or customer, the destination's account.
   */
  async referenceErrors(platformId: string, body: unknown, within?: UnitOfWork): Promise<FieldError[]> {
    const { db } = within ?? this.store;
    const source = asRecord(asRecord(body).source);
    const destination = asRecord(asRecord(body).destination);
    const errors: FieldError[] = [];
    if (source.sourceType === 'ACCOUNT' && lookupableId(source.accountId) && !(await this.internalAccount(db, platformId, source.accountId))) {
      errors.push({ field: 'source.accountId', message: 'is not an internal account of this platform' });
    }
    if (lookupableId(source.customerId)) {
      const customer = await findCustomer(db, platformId, source.customerId);
      if (!customer || customer.is_deleted === 1) errors.push({ field: 'source.customerId', message: 'is not a customer of this platform' });
    }
    if (destination.destinationType === 'ACCOUNT' && lookupableId(destination.accountId) && !(await this.destinationAccount(db, platformId, destination.accountId))) {
      errors.push({ field: 'destination.accountId', message: 'is not an external or internal account of this platform' });
    }
    return errors;
  }

  async create(platformId: string, input: CreateQuoteInput, within?: UnitOfWork): Promise<Quote> {
    return this.store.transaction(async (uow) => {
      const errors = await this.referenceErrors(platformId, input, uow);
      if (errors.length > 0) throw new ValidationError(errors);
      const sending = await this.sendingSide(uow.db, platformId, input.source);
      const receiving = await this.receivingSide(uow.db, platformId, input.destination);
      await this.refuseSelfPayment(uow.db, platformId, input, receiving.currency);

      const { rate, exchangeRate } = await this.rates.corridorRate(uow.db, platformId, sending.currency, receiving.currency);
      const fee = await this.rates.sendingFee(uow.db, platformId, sending.currency);
      const from = currencyOf(sending.currency);
      const to = currencyOf(receiving.currency);
      const conversion = convert(input.lockedCurrencySide, BigInt(input.lockedCurrencyAmount), rate, from.decimals, to.decimals, fee);
      const limits = await this.rates.limits(uow.db, platformId, sending.currency);
      if (conversion === undefined || !withinSafeIntegers(conversion) || conversion.converted < BigInt(limits.min) || conversion.converted > BigInt(limits.max)) {
        throw new PaymentRefusedError('AMOUNT_OUT_OF_RANGE', `The amount converted must be ${limits.min} to ${limits.max} minor units of ${sending.currency} (after fees)`, [
          { field: 'lockedCurrencyAmount', message: `converts ${conversion?.converted ?? 0} ${sending.currency} minor units; the corridor takes ${limits.min} to ${limits.max}` },
        ]);
      }

      const now = await this.clock.now(platformId, uow);
      const id = newId('Quote');
      const { lookupId: _lookup, source, destination, ...rest } = input;
      const realtime = source.sourceType === 'REALTIME_FUNDING';
      const row: QuoteRow = {
        id,
        platform_id: platformId,
        customer_id: sending.customerId ?? null,
        status: 'PENDING',
        source: JSON.stringify(source),
        destination: JSON.stringify(destination),
        sending_currency: sending.currency,
        receiving_currency: receiving.currency,
        total_sending_amount: Number(conversion.totalSending),
        total_receiving_amount: Number(conversion.totalReceiving),
        exchange_rate: exchangeRate,
        fees_included: Number(conversion.fees),
        // The sandbox charges no fee of its own (its margin is the spread): every fee is the platform's.
        platform_fees_included: Number(conversion.fees),
        transaction_id: newId('Transaction'),
        payment_instructions: realtime ? JSON.stringify(fundingInstructionsOf(id, sending.currency, sending.customerId === undefined)) : null,
        request: JSON.stringify(rest),
        created_at: now,
        expires_at: now + QUOTE_TTL_MS,
        updated_at: now,
      };
      await insertQuote(uow.db, row);
      return renderQuote(row, now);
    }, within);
  }

  async get(platformId: string, id: string): Promise<Quote> {
    const row = lookupableId(id) ? await findQuote(this.store.db, platformId, id) : undefined;
    if (!row) throw new NotFoundError('Quote', id);
    return renderQuote(row, await this.clock.now(platformId));
  }

  private async internalAccount(db: Executor, platformId: string, id: string): Promise<{ currency: string; customerId?: string } | undefined> {
    const account = await findAccount(db, platformId, id);
    if (account) return { currency: account.currency, customerId: account.customer_id };
    const own = await findPlatformAccount(db, platformId, id);
    return own ? { currency: own.currency } : undefined;
  }

  private async destinationAccount(db: Executor, platformId: string, id: string): Promise<{ currency: string } | undefined> {
    const external = await findExternalAccount(db, platformId, id, 'anyone');
    return external ?? (await this.internalAccount(db, platformId, id));
  }

  /** A quote paid inside the platform must pay another account than its source: 400 naming the destination. */
  private async refuseSelfPayment(db: Executor, platformId: string, input: CreateQuoteInput, receivingCurrency: string): Promise<void> {
    if (input.source.sourceType !== 'ACCOUNT') return;
    const { destination } = input;
    const paid = destination.destinationType === 'ACCOUNT' ? destination.accountId : (await umaCustomerRecipient(db, platformId, destination.umaAddress, receivingCurrency))?.accountId;
    if (paid === input.source.accountId) {
      throw new ValidationError([{ field: destination.destinationType === 'ACCOUNT' ? 'destination.accountId' : 'destination.umaAddress', message: 'pays the source account itself: a quote pays another account' }]);
    }
  }

  private async sendingSide(db: Executor, platformId: string, source: QuoteSource): Promise<Side> {
    if (source.sourceType === 'ACCOUNT') {
      const account = (await this.internalAccount(db, platformId, source.accountId))!;
      const side = { currency: account.currency, customerId: source.customerId ?? account.customerId };
      if (!isRated(side.currency)) throw new PaymentRefusedError('INVALID_CURRENCY', `The source account's currency ${side.currency} has no sandbox exchange rate`, [{ field: 'source.accountId', message: 'is in a currency without a sandbox rate' }]);
      return side;
    }
    if (!isRated(source.currency)) throw new PaymentRefusedError('INVALID_CURRENCY', `Invalid source.currency: ${source.currency} has no sandbox exchange rate`, [{ field: 'source.currency', message: 'has no sandbox exchange rate' }]);
    return { currency: source.currency, customerId: source.customerId };
  }

  private async receivingSide(db: Executor, platformId: string, destination: QuoteDestination): Promise<Side> {
    if (destination.destinationType === 'ACCOUNT') {
      const account = (await this.destinationAccount(db, platformId, destination.accountId))!;
      if (!isRated(account.currency)) throw new PaymentRefusedError('INVALID_CURRENCY', `The destination account's currency ${account.currency} has no sandbox exchange rate`, [{ field: 'destination.accountId', message: 'is in a currency without a sandbox rate' }]);
      return { currency: account.currency };
    }
    const currencies = await umaReceiverCurrencies(db, platformId, destination.umaAddress, 'destination.umaAddress');
    if (destination.currency === undefined) return { currency: currencies[0]! };
    if (!currencies.includes(destination.currency)) {
      throw new PaymentRefusedError('INVALID_CURRENCY', `Invalid destination.currency: ${destination.umaAddress} receives ${currencies.join(', ')}`, [{ field: 'destination.currency', constraint: { enum: currencies }, message: `must be one of ${currencies.join(', ')}` }]);
    }
    return { currency: destination.currency };
  }
}
