import * as cardsRepo from '../../store/cards-repo.js';
import type { CardOperationRow } from '../../store/tables/cards.js';
import * as repo from '../../store/payment-transactions-repo.js';
import type { SortOrder } from '../../store/page.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { CARD_TRANSACTION_STATUSES } from '../cards/card-transactions.js';
import { renderCardTransaction, type CardTransaction } from '../cards/render.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { NotFoundError, TransactionStateError, ValidationError } from '../shared/errors.js';
import { instant, listScope, type Cursors, type Page } from '../shared/pagination.js';
import { endTransfer } from './payment-lifecycle.js';
import { renderPaymentTransaction, type PaymentTransaction } from './render.js';

export type AnyTransaction = PaymentTransaction | CardTransaction;

/** The Grid document's transaction list filters, and `cardId` (this service's). */
export interface TransactionListFilters {
  cardId?: string | undefined;
  customerId?: string | undefined;
  platformCustomerId?: string | undefined;
  accountIdentifier?: string | undefined;
  senderAccountIdentifier?: string | undefined;
  receiverAccountIdentifier?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  reference?: string | undefined;
  /** ISO 8601 date-times, both inclusive, on createdAt. */
  startDate?: string | undefined;
  endDate?: string | undefined;
  sortOrder: SortOrder;
}

export const PAYMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;

type Listed = (repo.PaymentTransactionView | cardsRepo.CardTransactionView) & { list_position?: number };

/** (position, id) of a listed row, compared in the page's order. */
function compare(a: Listed, b: Listed, order: 'asc' | 'desc'): number {
  const pa = Number(a.list_position ?? a.created_at);
  const pb = Number(b.list_position ?? b.created_at);
  const c = pa !== pb ? pa - pb : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  return order === 'desc' ? -c : c;
}

const isCard = (row: Listed): row is cardsRepo.CardTransactionView => 'card_id' in row;

/**
 * Every kind of transaction in one place: incoming and outgoing transfers and card transactions,
 * read together (GET /transactions, GET /transactions/{id}), and the document's operations on a
 * transaction (confirm, approve, reject, cancel).
 */
export class PaymentTransactionService {
  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
    private readonly clock: PlatformClock,
  ) {}

  async get(platformId: string, id: string): Promise<AnyTransaction> {
    const payment = await repo.findPaymentTransaction(this.store.db, platformId, id);
    if (payment) return renderPaymentTransaction(payment);
    const card = await cardsRepo.findCardTransaction(this.store.db, platformId, id);
    if (!card) throw new NotFoundError('Transaction', id);
    return renderCardTransaction(card, card.platform_customer_id, await cardsRepo.operationsOf(this.store.db, [card.id]));
  }

  /**
   * One list of both kinds in (list position, id) order: each kind's page after the cursor, merged,
   * so a cursor continues both. `cardId`, when given, must be a card of this platform (400 on
   * cardId) and leaves only card transactions. A filter a kind does not have matches none of it.
   */
  async list(platformId: string, limit: number, cursor: string | undefined, filters: TransactionListFilters): Promise<Page<AnyTransaction>> {
    const { cardId } = filters;
    if (cardId !== undefined && !(await cardsRepo.findCard(this.store.db, platformId, cardId))) {
      throw new ValidationError([{ field: 'cardId', message: 'is not a card of this platform' }]);
    }
    const createdFrom = instant('startDate', filters.startDate);
    const createdTo = instant('endDate', filters.endDate);
    const scope = listScope('transactions', platformId, { ...filters });
    const q = this.cursors.query(scope, limit, cursor, filters.sortOrder);
    const cardsOnly =
      (filters.type !== undefined && filters.type !== 'CARD') ||
      (filters.status !== undefined && !(CARD_TRANSACTION_STATUSES as readonly string[]).includes(filters.status)) ||
      [filters.accountIdentifier, filters.senderAccountIdentifier, filters.receiverAccountIdentifier, filters.reference].some((v) => v !== undefined);
    const cards = await cardsRepo.listCardTransactions(this.store.db, platformId, q, {
      cardId,
      customerId: filters.customerId,
      platformCustomerId: filters.platformCustomerId,
      status: filters.status,
      createdFrom,
      createdTo,
      matchesNothing: cardsOnly,
    });
    const payments = await repo.listPaymentTransactions(this.store.db, platformId, q, {
      // The platform's id as customerId: the transfers of its own accounts, as the interface has it.
      customerId: filters.customerId === platformId ? null : filters.customerId,
      platformCustomerId: filters.platformCustomerId,
      status: filters.status,
      type: filters.type,
      accountIdentifier: filters.accountIdentifier,
      senderAccountIdentifier: filters.senderAccountIdentifier,
      receiverAccountIdentifier: filters.receiverAccountIdentifier,
      reference: filters.reference,
      createdFrom,
      createdTo,
      matchesNothing: cardId !== undefined || filters.type === 'CARD',
    });
    const merged = ([...cards.rows, ...payments.rows] as Listed[]).sort((a, b) => compare(a, b, q.order ?? 'asc')).slice(0, limit + 1);
    const cardIds = merged.slice(0, limit).filter(isCard).map((r) => r.id);
    const byTxn = new Map<string, CardOperationRow[]>();
    for (const o of await cardsRepo.operationsOf(this.store.db, cardIds)) byTxn.set(o.card_transaction_id, [...(byTxn.get(o.card_transaction_id) ?? []), o]);
    return this.cursors.page(scope, q, merged, cards.total + payments.total, (r): AnyTransaction =>
      isCard(r) ? renderCardTransaction(r, r.platform_customer_id, byTxn.get(r.id) ?? []) : renderPaymentTransaction(r),
    );
  }

  /** Records when the platform delivered the receipt (the platform's now when not given); again: replaces it. Card transactions carry no receipt (400). */
  async confirm(platformId: string, id: string, confirmedAt: number | undefined, within?: UnitOfWork): Promise<PaymentTransaction> {
    return this.store.transaction(async (uow) => {
      const row = await this.paymentOrRefuse(uow, platformId, id, 'carries no receipt to confirm');
      const now = await this.clock.now(platformId, uow);
      const after = { ...row, receipt_delivery_confirmed_at: confirmedAt ?? now, updated_at: now };
      await repo.updatePaymentTransaction(uow.db, id, { receipt_delivery_confirmed_at: after.receipt_delivery_confirmed_at, updated_at: now });
      return renderPaymentTransaction(after);
    }, within);
  }

  /**
   * approve and reject apply to incoming UMA payments waiting for the platform's decision (POST
   * /sandbox/uma/receive when the platform's config asks counterparty fields for the currency):
   * approve credits the customer (COMPLETED), reject fails it (COMPLIANCE_REJECTED). Any other
   * transaction: 409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL; an unknown one 404.
   */
  async decide(platformId: string, id: string, decision: 'approve' | 'reject', within?: UnitOfWork): Promise<PaymentTransaction> {
    const ended = await this.store.transaction(async (uow) => {
      const row = await repo.lockPaymentTransaction(uow, platformId, id);
      if (!row || row.status !== 'PENDING' || row.outcome !== 'AWAITING_APPROVAL') return undefined;
      const now = await this.clock.now(platformId, uow);
      return endTransfer(uow, row, decision === 'approve' ? { status: 'COMPLETED' } : { status: 'FAILED', why: 'REJECTED_BY_PLATFORM' }, now);
    }, within);
    if (ended) return renderPaymentTransaction(ended);
    const found = await this.get(platformId, id);
    throw new TransactionStateError(`Transaction ${id} is not an incoming payment pending the platform's approval; nothing to ${decision}`, found.status, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  }

  /**
   * Cancels a PENDING transfer (a bank-rail transfer not yet settled): it ends FAILED, a transfer-out's
   * hold returned as a refund (USER_CANCELLATION). A settled or failed one: 409 TRANSACTION_NOT_CANCELLABLE;
   * a card transaction is not a bank transfer: 400.
   */
  async cancel(platformId: string, id: string, within?: UnitOfWork): Promise<PaymentTransaction> {
    return this.store.transaction(async (uow) => {
      const row = await this.paymentOrRefuse(uow, platformId, id, 'is not a bank transfer; only transfers in and out can be cancelled');
      const now = await this.clock.now(platformId, uow);
      // An incoming UMA payment is the sender's; the platform approves or rejects it instead.
      const after = row.counterparty_uma ? undefined : await endTransfer(uow, row, { status: 'FAILED', why: 'CANCELLED' }, now);
      if (!after) throw new TransactionStateError(`Transaction ${id} is ${row.status}; only a PENDING transfer can be cancelled`, row.status, 'TRANSACTION_NOT_CANCELLABLE');
      return renderPaymentTransaction(after);
    }, within);
  }

  /** The payment transaction, locked; a card transaction is a 400 on transactionId, anything else a 404. */
  private async paymentOrRefuse(uow: UnitOfWork, platformId: string, id: string, why: string): Promise<repo.PaymentTransactionView> {
    const row = await repo.lockPaymentTransaction(uow, platformId, id);
    if (row) return row;
    if (await cardsRepo.findCardTransaction(uow.db, platformId, id)) throw new ValidationError([{ field: 'transactionId', message: `names a card transaction, which ${why}` }]);
    throw new NotFoundError('Transaction', id);
  }
}
