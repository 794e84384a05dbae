import * as repo from '../../store/accounts-repo.js';
import type { Executor } from '../../store/store.js';
import type { InternalAccountRow } from '../../store/tables/internal-accounts.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { findWebhookConfig } from '../../store/webhooks-repo.js';
import { newId } from '../shared/ids.js';

/** Every customer holds USD (its cards spend it), whatever its `currencies`. */
export const BASE_CURRENCY = 'USD';
const CRYPTO = new Set(['BTC', 'USDC', 'USDT']);

export const accountTypeOf = (currency: string): 'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' => (CRYPTO.has(currency) ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT');

/** The currency codes of the platform's `supportedCurrencies` (GET /config), in their order. */
export async function supportedCurrencyCodes(db: Executor, platformId: string): Promise<string[]> {
  const json = (await findWebhookConfig(db, platformId))?.supported_currencies;
  return json ? (JSON.parse(json) as { currencyCode: string }[]).map((c) => c.currencyCode) : [];
}

/** USD, then each of the customer's currencies the platform supports. */
export function accountCurrencies(customerCurrencies: readonly string[] | undefined, supported: readonly string[]): string[] {
  const allowed = new Set(supported);
  return [...new Set([BASE_CURRENCY, ...(customerCurrencies ?? []).filter((c) => allowed.has(c))])];
}

/** The rows of the customer's accounts in these currencies, not yet written. */
export function newAccountRows(platformId: string, customerId: string, currencies: readonly string[], now: number): InternalAccountRow[] {
  return currencies.map((currency) => ({
    id: newId('InternalAccount'),
    platform_id: platformId,
    customer_id: customerId,
    type: accountTypeOf(currency),
    status: 'ACTIVE',
    currency,
    available_balance: 0,
    total_balance: 0,
    created_at: now,
    updated_at: now,
  }));
}

/** Opens the customer's account in each currency it lacks one in, in the caller's unit of work; never closes one. */
export async function openAccounts(uow: UnitOfWork, platformId: string, customerId: string, currencies: readonly string[], now: number): Promise<void> {
  for (const row of newAccountRows(platformId, customerId, currencies, now)) await repo.insertAccountIfAbsent(uow, row);
}
