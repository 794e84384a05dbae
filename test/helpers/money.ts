import { accountOf } from '../../src/domain/accounts/internal-accounts.js';
import { expect } from 'vitest';
import { isHoldKind } from '../../src/domain/accounts/ledger.js';
import type { Services } from '../../src/services.js';
import { entriesOf } from '../../src/store/accounts-repo.js';
import type { Executor } from '../../src/store/store.js';
import { activeCard, insertTestCustomer } from './fixtures.js';
import type { Caller, TestApp } from './test-app.js';

export interface FundedCard {
  cardId: string;
  /** The card's funding source: its cardholder's USD internal account. */
  accountId: string;
  cardholderId: string;
}

/** Default funding: enough for any test's authorizations. */
export const AMPLE_FUNDS = 100_000_000;

async function ok(res: { statusCode: number; body: string; json(): any }, what: string, status = 200): Promise<any> {
  if (res.statusCode !== status) throw new Error(`${what} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** The customer's USD internal account id. */
export async function usdAccountOf(caller: Caller, customerId: string): Promise<string> {
  const page = await ok(await caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD&type=INTERNAL_FIAT`), 'GET /customers/internal-accounts');
  return page.data[0].id as string;
}

/**
 * An active card that can spend: a new cardholder, its USD account funded with `funds` (nothing
 * when 0) and bound as the card's funding source. The one place tests make such a card, so a change
 * to how cards are issued (KYC, PROCESSING first) is adapted here alone.
 */
export async function activeFundedCard(t: TestApp, caller: Caller = t.caller, funds = AMPLE_FUNDS, cardholderId?: string): Promise<FundedCard> {
  const holder = cardholderId ?? (await insertTestCustomer(t, caller));
  const accountId = await usdAccountOf(caller, holder);
  if (funds > 0) await ok(await caller.req('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: funds }), 'fund');
  // An approved cardholder, the card funded by that account and made ACTIVE by its provisioning job (fixtures.ts).
  const card = await activeCard(t, caller, holder);
  if (card.state !== 'ACTIVE' || card.fundingSources[0] !== accountId) throw new Error(`the new card is ${card.state} on ${String(card.fundingSources)}, not ACTIVE on ${accountId}`);
  return { cardId: card.id, accountId, cardholderId: holder };
}

/** Funds a customer's USD account through the services (opening the account if the customer was written straight to the store). */
export async function fundCustomer(services: Services, platformId: string, customerId: string, amount = AMPLE_FUNDS): Promise<string> {
  const account = await services.store.transaction((trx) => accountOf(trx, platformId, customerId, 'USD'));
  await services.internalAccounts.fund(platformId, account.id, amount);
  return account.id;
}

/** Funds a customer's USD account through a running server's API (`auth`: the Authorization header value). */
export async function fundCustomerAt(baseUrl: string, auth: string, customerId: string, amount = AMPLE_FUNDS): Promise<string> {
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as any;
  };
  const accountId = (await send('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&currency=USD`)).data[0].id as string;
  await send('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount });
  return accountId;
}

/** Asserts the account's ledger: the available balance is the sum of its entries, the total the sum of those that are not holds. */
export async function expectLedgerMatches(db: Executor, accountId: string, expected: { available: number; total: number }, step: string): Promise<void> {
  const entries = await entriesOf(db, accountId);
  expect(entries.reduce((s, e) => s + Number(e.amount), 0), `${step}: available = sum of the entries`).toBe(expected.available);
  expect(entries.filter((e) => !isHoldKind(e.kind)).reduce((s, e) => s + Number(e.amount), 0), `${step}: total = sum of the entries that are not holds`).toBe(expected.total);
}
