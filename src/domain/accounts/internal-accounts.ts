import * as repo from '../../store/accounts-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import type { Store } from '../../store/store.js';
import type { InternalAccountRow, LedgerEntryRow, PlatformInternalAccountRow } from '../../store/tables/internal-accounts.js';
import type { WebhookEventInput } from '../webhooks/webhook-events.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { BALANCE_UPDATED_EVENT, balanceEventAtCommit, balanceUpdatedAtCommit, type AccountListFilter, type InternalAccount } from './account.js';
import { currencyOf } from '../shared/currencies.js';
import { accountTypeOf, BASE_CURRENCY, openAccounts } from './account-currencies.js';
import { fundingInstructionsOf } from './funding-instructions.js';
import { fundPlatformAccount, renderPlatformAccount } from './platform-accounts.js';
import { NotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { entriesByAccount, type Movement, type Posting } from './ledger.js';
import type { Cursors, Page } from '../shared/pagination.js';
import type { PlatformClock } from '../platform/platform-clock.js';

export { BALANCE_UPDATED_EVENT, INTERNAL_ACCOUNT_STATUSES, INTERNAL_ACCOUNT_TYPES, type AccountListFilter, type InternalAccount } from './account.js';

export function renderAccount(row: InternalAccountRow): InternalAccount {
  const currency = currencyOf(row.currency);
  return {
    id: row.id,
    customerId: row.customer_id,
    type: row.type as InternalAccount['type'],
    status: row.status as InternalAccount['status'],
    balance: { amount: Number(row.available_balance), currency },
    totalBalance: { amount: Number(row.total_balance), currency },
    fundingPaymentInstructions: fundingInstructionsOf(row.id, row.currency, false),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

/**
 * The customer's account in a currency, opened now if it has none: customers written straight to
 * the store (the seed) get theirs when first needed.
 */
export async function accountOf(uow: UnitOfWork, platformId: string, customerId: string, currency: string, now = Date.now()): Promise<InternalAccountRow> {
  const type = accountTypeOf(currency);
  const found = await repo.findAccountOf(uow.db, customerId, type, currency);
  if (found) return found;
  await openAccounts(uow, platformId, customerId, [currency], now);
  const opened = await repo.findAccountOf(uow.db, customerId, type, currency);
  if (!opened) throw new Error(`internal account of ${customerId} in ${currency} could not be opened`);
  return opened;
}

export type { Posting } from './ledger.js';
export { balanceUpdatedAtCommit } from './account.js';

/**
 * Writes the entries, moves the account's balances by them and records the
 * INTERNAL_ACCOUNT.BALANCE_UPDATED event with the account after, all in the caller's unit of work.
 */
export async function post(uow: UnitOfWork, p: Posting, now = Date.now()): Promise<InternalAccount> {
  return (await postAll(uow, [p], now)).get(p.accountId)!;
}

/**
 * {@link post} for many postings: each account's are written together (one balance update and one
 * insert of all its entries), in the order of its first posting. Answers each account after.
 * `locked`: accounts this unit of work has locked and read (lockAccounts) and not written since;
 * when every posting is on one of them, nothing waits for the write (appendEntriesToLockedAccounts).
 */
export async function postAll(uow: UnitOfWork, postings: readonly Posting[], now = Date.now(), locked?: ReadonlyMap<string, InternalAccountRow>): Promise<Map<string, InternalAccount>> {
  const accounts = entriesByAccount(postings, now);
  // Every account in one statement on PostgreSQL (appendEntriesToAccounts): a landing holds these rows' locks until its commit.
  const rows = locked ? await repo.appendEntriesToLockedAccounts(uow, accounts, locked, now) : await repo.appendEntriesToAccounts(uow, 'internal_accounts', accounts, now);
  const byId = new Map(rows.map((r) => [r.id, r as InternalAccountRow]));
  const after = new Map<string, InternalAccount>();
  for (const { id, platformId } of accounts) {
    const row = byId.get(id);
    if (!row) throw new Error(`internal account ${id} does not exist`);
    const account = renderAccount(row);
    after.set(id, account);
    balanceUpdatedAtCommit(uow, platformId, account, now);
  }
  return after;
}

/**
 * A hold of `amount` (positive) on an account (a customer's, or with `platformOwned` one of the
 * platform's own), its entry naming the transfer, if the available balance covers it: decided and
 * written in one statement that takes the account's row lock (see holdIfAvailable), as late in the
 * caller's unit of work as it can come. Answers the account after, whose
 * INTERNAL_ACCOUNT.BALANCE_UPDATED event the caller records, or undefined (nothing written).
 */
export async function holdIfAvailable(
  uow: UnitOfWork,
  hold: { platformId: string; accountId: string; platformOwned: boolean; kind: Movement['kind']; amount: number; paymentTransactionId: string },
  now: number,
): Promise<InternalAccount | undefined> {
  const entry = holdEntry(hold, now);
  const row = await repo.holdIfAvailable(uow, hold.platformOwned ? 'platform_internal_accounts' : 'internal_accounts', entry, now);
  if (!row) return undefined;
  return hold.platformOwned ? renderPlatformAccount(row) : renderAccount(row as InternalAccountRow);
}

/**
 * {@link holdIfAvailable} written at commit (see accounts-repo.ts, holdAtCommit). On PostgreSQL the
 * account's row lock is then taken and released in the unit of work's last round trip, instead of
 * held from the hold's own round trip to COMMIT's while the server's busy event loop gets to them.
 * A hold the balance does not cover fails the unit of work with HOLD_REFUSED (isHoldRefused), and
 * nothing of it is written. Answers the account's INTERNAL_ACCOUNT.BALANCE_UPDATED event, for the
 * caller to record after it in the same unit of work: rendered from `read` (the account as read
 * before, without a lock) and `now`, its balances filled in as it is written, from the row the
 * hold leaves.
 */
export async function holdAtCommit(
  uow: UnitOfWork,
  hold: { platformId: string; accountId: string; platformOwned: boolean; kind: Movement['kind']; amount: number; paymentTransactionId: string },
  read: InternalAccountRow | PlatformInternalAccountRow,
  now: number,
): Promise<WebhookEventInput> {
  const entry = holdEntry(hold, now);
  const table = hold.platformOwned ? ('platform_internal_accounts' as const) : ('internal_accounts' as const);
  await repo.holdAtCommit(uow, table, entry, now);
  const account = hold.platformOwned ? renderPlatformAccount(read as PlatformInternalAccountRow) : renderAccount(read as InternalAccountRow);
  return balanceEventFilledAtWrite(hold.platformId, table, account, entry.id, now);
}

/**
 * An account's INTERNAL_ACCOUNT.BALANCE_UPDATED event whose balances are stand-ins, unique to
 * `key` (an entry's id), replaced by the account's balances as the event is written, after the
 * writes that move them (BalancePlaceholders); `account` renders the rest.
 */
function balanceEventFilledAtWrite(platformId: string, table: 'internal_accounts' | 'platform_internal_accounts', account: InternalAccount, key: string, now: number): WebhookEventInput {
  const placeholders = { table, accountId: account.id, available: `@available:${key}@`, total: `@total:${key}@` };
  const data = {
    ...account,
    balance: { ...account.balance, amount: placeholders.available },
    totalBalance: { ...account.totalBalance, amount: placeholders.total },
    updatedAt: new Date(now).toISOString(),
  };
  return { platformId, type: BALANCE_UPDATED_EVENT, fields: { data }, balancesOf: placeholders };
}

/**
 * postAll written at commit, on PostgreSQL (see accounts-repo.ts, appendEntriesAtCommit): the
 * accounts' row locks are taken and released in the unit of work's last round trip, not held from
 * the postings' own round trip to COMMIT's. Each account's INTERNAL_ACCOUNT.BALANCE_UPDATED event
 * is rendered from `read` (the accounts as read before, without a lock) and `now`, its balances
 * filled in as it is written, after the postings. False on SQLite (nothing written: postAll).
 */
export async function postAllAtCommit(uow: UnitOfWork, postings: readonly Posting[], read: ReadonlyMap<string, InternalAccountRow>, now: number): Promise<boolean> {
  const accounts = entriesByAccount(postings, now);
  if (accounts.some((a) => !read.has(a.id)) || !(await repo.appendEntriesAtCommit(uow, accounts, now))) return false;
  for (const { id, platformId, entries } of accounts) {
    // Recorded last, as balanceUpdatedAtCommit's: after every write of the unit of work that moves the account.
    balanceEventAtCommit(uow, id, balanceEventFilledAtWrite(platformId, 'internal_accounts', renderAccount(read.get(id)!), entries[0]?.id ?? id, now), now);
  }
  return true;
}

/** Whether `err` is a hold written at commit that the balance did not cover (see holdAtCommit). */
export function isHoldRefused(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === repo.HOLD_REFUSED;
}

function holdEntry(hold: { platformId: string; accountId: string; kind: Movement['kind']; amount: number; paymentTransactionId: string }, now: number): LedgerEntryRow {
  return {
    id: newId('LedgerEntry'),
    platform_id: hold.platformId,
    account_id: hold.accountId,
    kind: hold.kind,
    amount: -hold.amount,
    card_transaction_id: null,
    card_operation_id: null,
    payment_transaction_id: hold.paymentTransactionId,
    created_at: now,
  };
}

export class InternalAccountService {
  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
    private readonly clock: PlatformClock,
  ) {}

  async list(platformId: string, limit: number, cursor: string | undefined, filter: AccountListFilter): Promise<Page<InternalAccount>> {
    const scope = `internal-accounts:${platformId}:${filter.customerId ?? ''}:${filter.currency ?? ''}:${filter.type ?? ''}`;
    const q = this.cursors.query(scope, limit, cursor);
    if (filter.customerId !== undefined) await this.ensureDefaultAccount(platformId, filter.customerId);
    const { rows, total } = await repo.listAccounts(this.store.db, platformId, q, filter);
    return this.cursors.page(scope, q, rows, total, renderAccount);
  }

  /** Sandbox: credits the account (a FUNDING entry) and answers it. `within`: the request's unit of work, when it has one (an Idempotency-Key). */
  async fund(platformId: string, accountId: string, amount: number, within?: UnitOfWork): Promise<InternalAccount> {
    return this.store.transaction(async (uow) => {
      const now = await this.clock.now(platformId, uow);
      const row = await repo.findAccount(uow.db, platformId, accountId);
      if (row) return post(uow, { platformId, accountId: row.id, movements: [{ kind: 'FUNDING', amount }] }, now);
      const platformAccount = await fundPlatformAccount(uow, platformId, accountId, amount, now);
      if (!platformAccount) throw new NotFoundError('InternalAccount', accountId);
      return platformAccount;
    }, within);
  }


  /** A customer made before accounts existed, or written straight to the store, gets its account when listed by it. */
  private async ensureDefaultAccount(platformId: string, customerId: string): Promise<void> {
    if (await repo.findAccountOf(this.store.db, customerId, accountTypeOf(BASE_CURRENCY), BASE_CURRENCY)) return;
    const customer = await findCustomer(this.store.db, platformId, customerId);
    if (customer) await this.store.transaction((uow) => openAccounts(uow, platformId, customerId, [BASE_CURRENCY], Number(customer.created_at)));
  }
}
