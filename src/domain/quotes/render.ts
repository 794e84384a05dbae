import type { QuoteRow } from '../../store/tables/quotes.js';
import type { PaymentInstructions } from '../accounts/funding-instructions.js';
import { currencyOf, type Currency } from '../shared/currencies.js';

export type QuoteSource = { sourceType: 'ACCOUNT'; accountId: string; customerId?: string } | { sourceType: 'REALTIME_FUNDING'; currency: string; customerId?: string; cryptoNetwork?: string };
export type QuoteDestination = { destinationType: 'ACCOUNT'; accountId: string; paymentRail?: string } | { destinationType: 'UMA_ADDRESS'; umaAddress: string; currency?: string };

export const QUOTE_STATUSES = ['PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;

export interface Quote {
  id: string;
  status: (typeof QUOTE_STATUSES)[number];
  createdAt: string;
  expiresAt: string;
  source: QuoteSource;
  destination: QuoteDestination;
  sendingCurrency: Currency;
  receivingCurrency: Currency;
  totalSendingAmount: number;
  totalReceivingAmount: number;
  exchangeRate: number;
  feesIncluded: number;
  platformFeesIncluded: number;
  transactionId: string;
  paymentInstructions?: PaymentInstructions[];
}

/** The status a reader sees at `now` on the platform's clock: a PENDING quote past its expiresAt is EXPIRED. */
export function statusAt(row: Pick<QuoteRow, 'status' | 'expires_at'>, now: number): Quote['status'] {
  return row.status === 'PENDING' && now >= Number(row.expires_at) ? 'EXPIRED' : (row.status as Quote['status']);
}

export function renderQuote(row: QuoteRow, now: number): Quote {
  const quote: Quote = {
    id: row.id,
    status: statusAt(row, now),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    expiresAt: new Date(Number(row.expires_at)).toISOString(),
    source: JSON.parse(row.source) as QuoteSource,
    destination: JSON.parse(row.destination) as QuoteDestination,
    sendingCurrency: currencyOf(row.sending_currency),
    receivingCurrency: currencyOf(row.receiving_currency),
    totalSendingAmount: Number(row.total_sending_amount),
    totalReceivingAmount: Number(row.total_receiving_amount),
    // Shown as a JSON number; every amount was computed from the exact rational behind it.
    exchangeRate: Number(row.exchange_rate),
    feesIncluded: Number(row.fees_included),
    platformFeesIncluded: Number(row.platform_fees_included),
    transactionId: row.transaction_id,
  };
  if (row.payment_instructions !== null) quote.paymentInstructions = JSON.parse(row.payment_instructions) as PaymentInstructions[];
  return quote;
}
