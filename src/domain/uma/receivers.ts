import { findAccountOf } from '../../store/accounts-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import { findExternalAccount } from '../../store/external-accounts-repo.js';
import { findCustomerByUma } from '../../store/quotes-repo.js';
import type { Executor, Store } from '../../store/store.js';
import { accountTypeOf, BASE_CURRENCY } from '../accounts/account-currencies.js';
import { type CorridorRate, ExchangeRateService } from '../fx/exchange-rates.js';
import { isRated, sendingLimits } from '../fx/rate-table.js';
import { currencyOf, type Currency } from '../shared/currencies.js';
import { lookupableId, NotFoundError, PaymentRefusedError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isUmaAddress, sandboxUmaAddress } from './sandbox-uma.js';

export interface CurrencyPreference {
  currency: Currency;
  estimatedExchangeRate: number;
  min: number;
  max: number;
}

export interface ReceiverLookup {
  supportedCurrencies: CurrencyPreference[];
  lookupId: string;
}

export interface LookupSender {
  senderUmaAddress?: string | undefined;
  customerId?: string | undefined;
}

/**
 * The currencies a UMA address receives: a sandbox guide address its one currency, a customer of
 * this platform the currencies with a sandbox rate it holds an internal account in (its own, then USD); any other well-formed address
 * has no receiver (404 UMA_NOT_FOUND), a malformed one is 400 INVALID_UMA_ADDRESS.
 */
export async function umaReceiverCurrencies(db: Executor, platformId: string, address: string, field: string): Promise<string[]> {
  if (!isUmaAddress(address)) throw new PaymentRefusedError('INVALID_UMA_ADDRESS', `Invalid ${field}: must be $user@domain`, [{ field, message: 'must be $user@domain' }]);
  const sandbox = sandboxUmaAddress(address);
  if (sandbox) return [sandbox.currency];
  const customer = await findCustomerByUma(db, platformId, address);
  if (!customer) throw new NotFoundError('UmaAddress', address);
  // Only the currencies the customer holds an internal account in (a payment there credits it), its own first; USD, which every customer holds, last.
  const codes: string[] = [];
  for (const code of customer.currency_list.split(',')) {
    if (code !== '' && code !== BASE_CURRENCY && isRated(code) && (await findAccountOf(db, customer.id, accountTypeOf(code), code))) codes.push(code);
  }
  return [...codes, BASE_CURRENCY];
}

/** GET /receiver/uma/{address} and /receiver/external-account/{id}: what a sender can pay there, at the sandbox's estimated rates. */
export class ReceiverLookups {
  constructor(
    private readonly store: Store,
    private readonly rates: ExchangeRateService,
  ) {}

  async lookupUma(platformId: string, address: string, sender: LookupSender): Promise<ReceiverLookup & { receiverUmaAddress: string }> {
    const { db } = this.store;
    const from = await this.sendingCurrency(db, platformId, sender);
    const currencies = await umaReceiverCurrencies(db, platformId, address, 'receiverUmaAddress');
    return { receiverUmaAddress: address, ...(await this.preferences(db, platformId, from, currencies)) };
  }

  async lookupExternalAccount(platformId: string, accountId: string, sender: LookupSender): Promise<ReceiverLookup & { accountId: string }> {
    const { db } = this.store;
    const from = await this.sendingCurrency(db, platformId, sender);
    const account = await findExternalAccount(db, platformId, accountId, 'anyone');
    if (!account) throw new NotFoundError('ExternalAccount', accountId);
    if (!isRated(account.currency)) throw new PaymentRefusedError('INVALID_CURRENCY', `The account's currency ${account.currency} has no sandbox exchange rate`);
    return { accountId, ...(await this.preferences(db, platformId, from, [account.currency])) };
  }

  /** The sender's currency: the customer's first currency with a sandbox rate, else USD. */
  private async sendingCurrency(db: Executor, platformId: string, sender: LookupSender): Promise<string> {
    if (sender.customerId === undefined) return 'USD';
    const customer = lookupableId(sender.customerId) ? await findCustomer(db, platformId, sender.customerId) : undefined;
    if (!customer || customer.is_deleted === 1) throw new ValidationError([{ field: 'customerId', message: 'is not a customer of this platform' }]);
    return customer.currency_list.split(',').find((c) => c !== '' && isRated(c)) ?? 'USD';
  }

  private async preferences(db: Executor, platformId: string, from: string, currencies: string[]): Promise<ReceiverLookup> {
    const supportedCurrencies: CurrencyPreference[] = [];
    for (const to of currencies) {
      const rate: CorridorRate = await this.rates.corridorRate(db, platformId, from, to);
      const limits = sendingLimits(to);
      supportedCurrencies.push({ currency: currencyOf(to), estimatedExchangeRate: Number(rate.exchangeRate), min: limits.min, max: limits.max });
    }
    return { supportedCurrencies, lookupId: newId('LookupRequest') };
  }
}

