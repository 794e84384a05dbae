import type { PaymentTransactionView } from '../../store/payment-transactions-repo.js';
import { currencyOf, type CurrencyAmount } from '../shared/currencies.js';

/** The Refund object: what a failed or cancelled transfer-out gave back to its internal account. */
export interface Refund {
  reference: string;
  initiatedAt: string;
  settledAt?: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  reason: 'TRANSACTION_FAILED' | 'USER_CANCELLATION' | 'TIMEOUT';
}

/** An IncomingTransaction or OutgoingTransaction as the document has them. */
export interface PaymentTransaction {
  id: string;
  status: string;
  type: 'INCOMING' | 'OUTGOING';
  direction: 'CREDIT' | 'DEBIT';
  source: { sourceType: 'ACCOUNT'; accountId: string; currency: string } | { sourceType: 'UMA_ADDRESS'; umaAddress: string; currency: string };
  destination: { destinationType: 'ACCOUNT'; accountId: string; currency: string } | { destinationType: 'UMA_ADDRESS'; umaAddress: string; currency: string };
  customerId: string;
  platformCustomerId: string;
  sentAmount: CurrencyAmount;
  receivedAmount: CurrencyAmount;
  exchangeRate: number;
  fees: number;
  platformFees?: number;
  reconciliationInstructions: { reference: string };
  failureReason?: string;
  refund?: Refund;
  description?: string;
  purposeOfPayment?: string;
  quoteId?: string;
  paymentRail?: string | null;
  railSelectionMode?: 'AUTO' | 'MANUAL' | null;
  expectedSettlementAt?: string | null;
  settlementTimelineSeconds?: number | null;
  settledAt?: string;
  receiptDeliveryConfirmedAt?: string;
  createdAt: string;
  updatedAt: string;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** The stored refund with the given status, when there is one (the webhooks of one commit show it as it moved). */
export function refundOf(row: Pick<PaymentTransactionView, 'refund'>): Refund | undefined {
  return row.refund === null ? undefined : (JSON.parse(row.refund) as Refund);
}

export function renderPaymentTransaction(row: PaymentTransactionView, refund: Refund | undefined = refundOf(row)): PaymentTransaction {
  const amount: CurrencyAmount = { amount: Number(row.amount), currency: currencyOf(row.currency) };
  const incoming = row.type === 'INCOMING';
  const external = { accountId: row.external_account_id, currency: row.currency };
  const internal = { accountId: row.internal_account_id, currency: row.currency };
  const out: PaymentTransaction = {
    id: row.id,
    status: row.status,
    type: incoming ? 'INCOMING' : 'OUTGOING',
    direction: row.direction as 'CREDIT' | 'DEBIT',
    source: { sourceType: 'ACCOUNT', ...(incoming ? external : internal) },
    destination: { destinationType: 'ACCOUNT', ...(incoming ? internal : external) },
    // The platform's own transfers name the platform, as the interface's customerId filter does.
    customerId: row.customer_id ?? row.platform_id,
    platformCustomerId: row.platform_customer_id ?? row.platform_id,
    sentAmount: amount,
    receivedAmount: amount,
    exchangeRate: 1,
    fees: 0,
    reconciliationInstructions: { reference: row.reference },
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
  if (!incoming) {
    out.platformFees = 0;
    out.paymentRail = row.payment_rail;
    out.railSelectionMode = row.rail_selection_mode as 'AUTO' | 'MANUAL' | null;
    // Sandbox rails settle as the transfer lands: nothing deferred to announce.
    out.expectedSettlementAt = null;
    out.settlementTimelineSeconds = null;
  }
  if (row.quote_id) {
    // A quote's payment: the sending side held and debited, the receiving side converted at the quote's rate.
    out.quoteId = row.quote_id;
    out.receivedAmount = { amount: Number(row.received_amount), currency: currencyOf(row.received_currency!) };
    out.destination = { destinationType: 'ACCOUNT', accountId: row.external_account_id, currency: row.received_currency! };
    out.exchangeRate = Number(row.exchange_rate);
    out.fees = Number(row.fees ?? 0);
    out.platformFees = Number(row.platform_fees ?? 0);
  }
  // The UMA side: an incoming payment's sender, a quote payment's sandbox UMA payee.
  if (row.counterparty_uma && incoming) out.source = { sourceType: 'UMA_ADDRESS', umaAddress: row.counterparty_uma, currency: row.currency };
  if (row.counterparty_uma && !incoming) out.destination = { destinationType: 'UMA_ADDRESS', umaAddress: row.counterparty_uma, currency: out.receivedAmount.currency.code };
  if (row.failure_reason !== null) out.failureReason = row.failure_reason;
  if (refund !== undefined) out.refund = refund;
  if (row.remittance_information !== null) out.description = row.remittance_information;
  if (row.purpose_of_payment !== null) out.purposeOfPayment = row.purpose_of_payment;
  if (row.settled_at !== null) out.settledAt = iso(row.settled_at);
  if (row.receipt_delivery_confirmed_at !== null) out.receiptDeliveryConfirmedAt = iso(row.receipt_delivery_confirmed_at);
  return out;
}
