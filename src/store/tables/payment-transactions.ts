/**
 * A same-currency transfer between a customer's internal account and one of its external accounts:
 * an INCOMING transaction (transfer-in, a pull) or an OUTGOING one (transfer-out, a push).
 */
export interface PaymentTransactionRow {
  id: string;
  platform_id: string;
  /** The customer whose accounts it moves between; null for the platform's own accounts. */
  customer_id: string | null;
  /** INCOMING or OUTGOING. */
  type: string;
  /** CREDIT (money into the internal account) or DEBIT. */
  direction: string;
  status: string;
  internal_account_id: string;
  external_account_id: string;
  /** The external account's primary identifier when the transfer was made, for the account identifier filters. */
  external_identifier: string | null;
  currency: string;
  amount: number;
  payment_rail: string | null;
  /** MANUAL when the request named the rail, AUTO when it was chosen; null without a rail. */
  rail_selection_mode: string | null;
  remittance_information: string | null;
  purpose_of_payment: string | null;
  /** What the sandbox decided at creation (transfers/transfer-outcomes.ts). */
  outcome: string;
  failure_reason: string | null;
  /** The Refund object, JSON; null when nothing was refunded. */
  refund: string | null;
  /** The reconciliation reference: unique per transaction. */
  reference: string;
  receipt_delivery_confirmed_at: number | null;
  settled_at: number | null;
  created_at: number;
  updated_at: number;
  /** The quote this payment executes; null for a same-currency transfer (and the columns below with it). */
  quote_id?: string | null;
  received_currency?: string | null;
  received_amount?: number | null;
  /** Sending units per receiving unit, an exact decimal string. */
  exchange_rate?: string | null;
  /** Within amount: the quote's fees, all the platform's, credited to fee_account_id (its own account in the sending currency) on completion. */
  fees?: number | null;
  platform_fees?: number | null;
  fee_account_id?: string | null;
  /** An incoming UMA payment's sender address (external_account_id repeats it); null for a bank transfer. */
  counterparty_uma?: string | null;
  /** Place on the platform's lists, given at commit (store/list-clock.ts); shared with card transactions. */
  list_position?: number;
}

export interface PaymentTransactionTables {
  payment_transactions: PaymentTransactionRow;
}
