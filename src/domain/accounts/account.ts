import type { CurrencyAmount } from '../shared/currencies.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { recordWebhookEvent, type WebhookEventInput } from '../webhooks/webhook-events.js';
import type { PaymentInstructions } from './funding-instructions.js';

export const INTERNAL_ACCOUNT_TYPES = ['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET'] as const;
export const INTERNAL_ACCOUNT_STATUSES = ['PENDING', 'ACTIVE', 'CLOSED', 'FROZEN', 'FAILED'] as const;
export const BALANCE_UPDATED_EVENT = 'INTERNAL_ACCOUNT.BALANCE_UPDATED';

/** An internal account as the interface has it, a customer's or the platform's. */
export interface InternalAccount {
  id: string;
  /** Absent on the platform's own accounts. */
  customerId?: string;
  type: (typeof INTERNAL_ACCOUNT_TYPES)[number];
  status: (typeof INTERNAL_ACCOUNT_STATUSES)[number];
  /** Available to spend: open holds deducted. */
  balance: CurrencyAmount;
  /** Including held funds. */
  totalBalance: CurrencyAmount;
  fundingPaymentInstructions: PaymentInstructions[];
  createdAt: string;
  updatedAt: string;
}

export interface AccountListFilter {
  customerId?: string | undefined;
  currency?: string | undefined;
  type?: InternalAccount['type'] | undefined;
}


/**
 * Records the account's INTERNAL_ACCOUNT.BALANCE_UPDATED event as the unit of work commits: asked
 * for again in the same commit (the same account moved again), only the latest, the account as the
 * commit leaves it, is sent. A worker's group commit that lands many operations on one account
 * sends one (measured, webhooks bench, SQLite, 500/s: one event per operation doubled the
 * deliveries and took the 202 -> webhook p50 from about 1.1 s to 3.4 s).
 */
export function balanceUpdatedAtCommit(uow: UnitOfWork, platformId: string, account: InternalAccount, now: number): void {
  balanceEventAtCommit(uow, account.id, { platformId, type: BALANCE_UPDATED_EVENT, fields: { data: account } }, now);
}

/** balanceUpdatedAtCommit for an event already rendered (one whose balances are filled in as it is written, say). */
export function balanceEventAtCommit(uow: UnitOfWork, accountId: string, event: WebhookEventInput, now: number): void {
  uow.beforeCommit(`balance-updated:${accountId}`, async (u) => {
    await recordWebhookEvent(u, event, now);
  });
}
