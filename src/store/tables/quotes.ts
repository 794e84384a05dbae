/** A rate a sandbox test set for one corridor of its platform (PUT /sandbox/exchange-rates/{from}/{to}). */
export interface ExchangeRateOverrideRow {
  platform_id: string;
  source_currency: string;
  destination_currency: string;
  /** Sending units per receiving unit, an exact decimal string. */
  exchange_rate: string;
  updated_at: number;
}

/** A cross-currency quote: its amounts locked at creation, good until expires_at on the platform's clock. */
export interface QuoteRow {
  id: string;
  platform_id: string;
  customer_id: string | null;
  /** As stored; a PENDING quote past expires_at reads as EXPIRED. */
  status: string;
  /** The request's source and destination, JSON. */
  source: string;
  destination: string;
  sending_currency: string;
  receiving_currency: string;
  total_sending_amount: number;
  total_receiving_amount: number;
  /** Sending units per receiving unit, an exact decimal string. */
  exchange_rate: string;
  fees_included: number;
  platform_fees_included: number;
  /** The id the transaction executing this quote will take. */
  transaction_id: string;
  /** Real-time funding: how to pay the quote, JSON; null for an account source. */
  payment_instructions: string | null;
  /** What was asked beyond source and destination (lock side, amount, description, ...), JSON. */
  request: string;
  created_at: number;
  expires_at: number;
  updated_at: number;
}

/** An UMA invitation of a platform's customer, claimed by an invitee's UMA address. */
export interface UmaInvitationRow {
  code: string;
  platform_id: string;
  status: string;
  inviter_uma: string;
  invitee_uma: string | null;
  first_name: string | null;
  amount_to_send: number | null;
  amount_currency: string | null;
  expires_at: number | null;
  claimed_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface QuoteTables {
  exchange_rate_overrides: ExchangeRateOverrideRow;
  quotes: QuoteRow;
  uma_invitations: UmaInvitationRow;
}
