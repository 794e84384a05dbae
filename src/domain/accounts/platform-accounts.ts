import type { PlatformClock } from '../platform/platform-clock.js';
import { appendPlatformEntries, findPlatformAccount, insertPlatformAccountsIfAbsent, listPlatformAccounts } from '../../store/platform-accounts-repo.js';
import { appendEntriesToAccounts } from '../../store/accounts-repo.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';
import type { PlatformInternalAccountRow } from '../../store/tables/internal-accounts.js';
import { currencyOf } from '../shared/currencies.js';
import { newId } from '../shared/ids.js';
import { accountCurrencies, accountTypeOf, supportedCurrencyCodes } from './account-currencies.js';
import { fundingInstructionsOf } from './funding-instructions.js';
import { BALANCE_UPDATED_EVENT, balanceUpdatedAtCommit, type InternalAccount, type AccountListFilter } from './account.js';
import { balanceDelta, entriesByAccount, type Movement } from './ledger.js';

export function renderPlatformAccount(row: PlatformInternalAccountRow): InternalAccount {
  const currency = currencyOf(row.currency);
  return {
    id: row.id,
    type: row.type as InternalAccount['type'],
    status: row.status as InternalAccount['status'],
    balance: { amount: Number(row.available_balance), currency },
    totalBalance: { amount: Number(row.total_balance), currency },
    fundingPaymentInstructions: fundingInstructionsOf(row.id, row.currency, true),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

/**
 * Credits one of the platform's own accounts in the caller's unit of work, with its ledger entry and
 * INTERNAL_ACCOUNT.BALANCE_UPDATED event; undefined when the platform has no such account.
 */
export async function fundPlatformAccount(uow: UnitOfWork, platformId: string, accountId: string, amount: number, now: number): Promise<InternalAccount | undefined> {
  if (!(await findPlatformAccount(uow.db, platformId, accountId))) return undefined;
  const movements: Movement[] = [{ kind: 'FUNDING', amount }];
  const entries = movements.map((m) => ({ id: newId('LedgerEntry'), platform_id: platformId, account_id: accountId, kind: m.kind, amount: m.amount, card_transaction_id: null, card_operation_id: null, created_at: now }));
  const account = renderPlatformAccount(await appendPlatformEntries(uow.db, accountId, entries, balanceDelta(movements), now));
  await recordWebhookEvent(uow, { platformId, type: BALANCE_UPDATED_EVENT, fields: { data: account } }, now);
  return account;
}

/**
 * Writes movements to one of the platform's own accounts (their entries naming `paymentTransactionId`),
 * with its INTERNAL_ACCOUNT.BALANCE_UPDATED event, in the caller's unit of work.
 */
export async function postToPlatformAccount(uow: UnitOfWork, platformId: string, accountId: string, movements: Movement[], paymentTransactionId: string, now: number): Promise<InternalAccount> {
  const entries = movements.map((m) => ({
    id: newId('LedgerEntry'),
    platform_id: platformId,
    account_id: accountId,
    kind: m.kind,
    amount: m.amount,
    card_transaction_id: null,
    card_operation_id: null,
    payment_transaction_id: paymentTransactionId,
    created_at: now,
  }));
  const account = renderPlatformAccount(await appendPlatformEntries(uow.db, accountId, entries, balanceDelta(movements), now));
  await recordWebhookEvent(uow, { platformId, type: BALANCE_UPDATED_EVENT, fields: { data: account } }, now);
  return account;
}

/**
 * postToPlatformAccount for many postings (each naming its transfer): each account's written
 * together (one balance update, one insert of its entries), in the order of its first posting,
 * with one INTERNAL_ACCOUNT.BALANCE_UPDATED event per account per commit, as postAll does for
 * customers' accounts.
 */
export async function postAllToPlatformAccounts(
  uow: UnitOfWork,
  postings: readonly { platformId: string; accountId: string; movements: Movement[]; paymentTransactionId: string }[],
  now: number,
): Promise<void> {
  const accounts = entriesByAccount(postings, now);
  const rows = await appendEntriesToAccounts(uow, 'platform_internal_accounts', accounts, now);
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const { id, platformId } of accounts) {
    const row = byId.get(id);
    if (!row) throw new Error(`platform internal account ${id} does not exist`);
    balanceUpdatedAtCommit(uow, platformId, renderPlatformAccount(row), now);
  }
}

/**
 * The platform's own accounts: one per currency of its supportedCurrencies (USD always), opened
 * when first listed after the currency was configured; a currency removed later keeps its account.
 */
export class PlatformAccountService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  /** Every timestamp this service writes (the sandbox clock replaces it). */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  async list(platformId: string, filter: Omit<AccountListFilter, 'customerId'>): Promise<{ data: InternalAccount[] }> {
    const supported = await supportedCurrencyCodes(this.store.db, platformId);
    const wanted = accountCurrencies(supported, supported);
    const have = new Set((await listPlatformAccounts(this.store.db, platformId, {})).map((r) => r.currency));
    const missing = wanted.filter((c) => !have.has(c));
    if (missing.length > 0) {
      const now = await this.now(platformId);
      const rows = missing.map((currency) => ({
        id: newId('InternalAccount'),
        platform_id: platformId,
        type: accountTypeOf(currency),
        status: 'ACTIVE',
        currency,
        available_balance: 0,
        total_balance: 0,
        created_at: now,
        updated_at: now,
      }));
      await this.store.transaction((uow) => insertPlatformAccountsIfAbsent(uow.db, rows));
    }
    return { data: (await listPlatformAccounts(this.store.db, platformId, filter)).map(renderPlatformAccount) };
  }
}
