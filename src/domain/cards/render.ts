import { currencyOf, type CurrencyAmount } from '../shared/currencies.js';
import type { CardOperationRow, CardRow, CardTransactionRow } from '../../store/tables/cards.js';
import type { CardState } from './card-lifecycle.js';
import type { CardTransactionStatus, DeclineReason, Direction, Ledger, LedgerStatus, OpeningKind, OperationKind } from './card-transactions.js';
import { summariesOf, type CardEventSummary, type CardPullSummary } from './card-summaries.js';

/** What a platform sees of a card and its transactions, and the ledger columns of a transaction row. */
export { currencyOf, type Currency, type CurrencyAmount } from '../shared/currencies.js';
/** Sandbox cards transact in one currency; real cards take theirs from the funding sources. */
export const CARD_CURRENCY = 'USD';

export interface Card {
  id: string;
  cardholderId: string;
  platformCardId: string;
  state: CardState;
  stateReason: 'ISSUER_REJECTED' | 'CLOSED_BY_PLATFORM' | 'CLOSED_BY_GRID' | null;
  brand: 'VISA' | 'MASTERCARD';
  form: 'VIRTUAL';
  last4: string;
  expMonth: number;
  expYear: number;
  fundingSources: string[];
  /** Minor units; null: no limit. */
  maxSpendPerTransaction: number | null;
  currency: string;
  createdAt: string;
  updatedAt: string;
}


export interface CardOperation {
  id: string;
  kind: OperationKind;
  amount?: number;
  issuerTransactionToken: string;
  status: CardOperationRow['status'];
  reason?: string;
  acceptedAt: string;
  processedAt?: string;
}

export interface CardTransaction {
  id: string;
  type: 'CARD';
  status: CardTransactionStatus;
  /** Only on a DECLINED transaction. */
  declineReason?: DeclineReason;
  direction: Direction;
  cardId: string;
  accountId: string;
  customerId: string;
  platformCustomerId: string;
  merchant: { descriptor: string; mcc?: string; country?: string };
  authorizedAmount: CurrencyAmount;
  settledAmount: CurrencyAmount;
  refundedAmount: CurrencyAmount;
  pullSummary: CardPullSummary;
  settlementSummary: CardEventSummary;
  refundSummary: CardEventSummary;
  issuerTransactionToken: string;
  authorizedAt: string;
  lastEventAt: string;
  createdAt: string;
  updatedAt: string;
  operations: CardOperation[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export function renderCard(row: CardRow): Card {
  return {
    id: row.id,
    cardholderId: row.cardholder_id,
    platformCardId: row.platform_card_id,
    state: row.state as CardState,
    stateReason: (row.state_reason as Card['stateReason']) ?? null,
    brand: row.brand as Card['brand'],
    form: row.form as Card['form'],
    last4: row.last4,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    fundingSources: JSON.parse(row.funding_sources) as string[],
    maxSpendPerTransaction: row.max_spend_per_transaction,
    currency: row.currency,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function renderOperation(row: CardOperationRow): CardOperation {
  const op: CardOperation = { id: row.id, kind: row.kind as OperationKind, issuerTransactionToken: row.issuer_transaction_token, status: row.status, acceptedAt: iso(row.accepted_at) };
  if (row.amount !== null) op.amount = row.amount;
  if (row.reason !== null) op.reason = row.reason;
  if (row.processed_at !== null) op.processedAt = iso(row.processed_at);
  return op;
}

export function renderCardTransaction(row: CardTransactionRow, platformCustomerId: string, operations: CardOperationRow[]): CardTransaction {
  const currency = currencyOf(row.currency);
  const money = (amount: number): CurrencyAmount => ({ amount, currency });
  const authorizedAt = row.authorized_at ?? row.created_at;
  return {
    id: row.id,
    type: 'CARD',
    status: row.status as CardTransactionStatus,
    ...(row.decline_reason === null ? {} : { declineReason: row.decline_reason as DeclineReason }),
    direction: row.direction as Direction,
    cardId: row.card_id,
    // Set when the authorization lands, before the transaction is visible (and by migration 010 for older ones).
    accountId: row.account_id ?? '',
    customerId: row.customer_id,
    platformCustomerId,
    merchant: JSON.parse(row.merchant) as CardTransaction['merchant'],
    authorizedAmount: money(row.authorized_amount),
    settledAmount: money(row.settled_amount),
    refundedAmount: money(row.refunded_amount),
    ...summariesOf(row.decline_reason, operations, row.direction as Direction),
    issuerTransactionToken: row.issuer_transaction_token,
    authorizedAt: iso(authorizedAt),
    lastEventAt: iso(row.last_event_at ?? authorizedAt),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    operations: operations.map(renderOperation),
  };
}

export function ledgerOf(row: CardTransactionRow): Ledger {
  return {
    status: row.status as LedgerStatus,
    direction: row.direction as Direction,
    openedBy: row.opened_by as OpeningKind,
    authorized: row.authorized_amount,
    settled: row.settled_amount,
    refunded: row.refunded_amount,
    settlementCount: row.settlement_count,
    refundCount: row.refund_count,
    lastReturn:
      row.last_return_amount === null
        ? null
        : { amount: row.last_return_amount, priorStatus: row.last_return_prior_status as 'SETTLED' | 'PARTIALLY_SETTLED' },
  };
}

export function ledgerColumns(l: Ledger): Pick<
  CardTransactionRow,
  'status' | 'authorized_amount' | 'settled_amount' | 'refunded_amount' | 'settlement_count' | 'refund_count' | 'last_return_amount' | 'last_return_prior_status'
> {
  return {
    status: l.status,
    authorized_amount: l.authorized,
    settled_amount: l.settled,
    refunded_amount: l.refunded,
    settlement_count: l.settlementCount,
    refund_count: l.refundCount,
    last_return_amount: l.lastReturn?.amount ?? null,
    last_return_prior_status: l.lastReturn?.priorStatus ?? null,
  };
}
