/** A card issued to a customer of a platform. */
export interface CardRow {
  id: string;
  platform_id: string;
  cardholder_id: string;
  platform_card_id: string;
  state: string;
  /** Why the card is CLOSED (CLOSED_BY_PLATFORM, ...); null otherwise. Added by migration 012. */
  state_reason: string | null;
  form: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  currency: string;
  /** JSON array of internal account ids, in priority order. */
  funding_sources: string;
  /** Largest amount one authorization may have, in minor units; null: no limit. Added by migration 016. */
  max_spend_per_transaction: number | null;
  created_at: number;
  /** Place on the platform's lists, given at commit (store/list-clock.ts); inserts write the creation time until then. */
  list_position?: number;
  updated_at: number;
}

/**
 * One card transaction: an authorization and everything reconciled against it. Status `PENDING`
 * (internal, never rendered) means its authorization is accepted but has not landed yet.
 */
export interface CardTransactionRow {
  id: string;
  platform_id: string;
  card_id: string;
  customer_id: string;
  /** The internal account the transaction holds and debits; set when its authorization lands. */
  account_id: string | null;
  status: string;
  /** JSON {descriptor, mcc?, country?} */
  merchant: string;
  currency: string;
  authorized_amount: number;
  settled_amount: number;
  refunded_amount: number;
  settlement_count: number;
  refund_count: number;
  /** The return that made the transaction REFUNDED, so a return reversal can undo exactly it. */
  last_return_amount: number | null;
  last_return_prior_status: string | null;
  issuer_transaction_token: string;
  /** DEBIT, or CREDIT (credit authorizations). Added by migration 017. */
  direction: string;
  /** The kind of the operation that opened it (AUTHORIZATION, FINANCIAL_AUTHORIZATION, BALANCE_INQUIRY, ...). Added by migration 017. */
  opened_by: string;
  /** CARD_PAUSED, SPEND_LIMIT_EXCEEDED or INSUFFICIENT_FUNDS when the authorization was declined (status DECLINED); else null. */
  decline_reason: string | null;
  /** Sequence number the next accepted operation gets; operations land in this order. */
  next_seq: number;
  authorized_at: number | null;
  last_event_at: number | null;
  created_at: number;
  /** Place on the platform's lists, given at commit (store/list-clock.ts); inserts write the creation time until then. */
  list_position?: number;
  updated_at: number;
}

export type CardOperationStatus = 'PENDING' | 'LANDED' | 'REJECTED';

/** A simulated issuer event against a transaction: accepted (PENDING), then LANDED or REJECTED. */
export interface CardOperationRow {
  id: string;
  platform_id: string;
  card_transaction_id: string;
  seq: number;
  kind: string;
  amount: number | null;
  issuer_transaction_token: string;
  status: CardOperationStatus;
  reason: string | null;
  accepted_at: number;
  processed_at: number | null;
}

export interface CardTables {
  cards: CardRow;
  card_transactions: CardTransactionRow;
  card_operations: CardOperationRow;
}
