import { Type } from 'typebox';
import { CurrencySchema } from './cards.js';

const PAYMENT_RAILS = [
  'ACH', 'ACH_COLOMBIA', 'BANK_TRANSFER', 'BRE_B', 'CIPS', 'FAST', 'FASTER_PAYMENTS', 'FEDNOW', 'INSTAPAY', 'MOBILE_MONEY', 'NEFT', 'PAYNOW',
  'PESONET', 'PIX', 'RTGS', 'RTP', 'SEPA', 'SEPA_INSTANT', 'SPEI', 'SWIFT', 'UNIONPAY', 'UPI', 'WIRE',
];
const PURPOSES = [
  'GIFT', 'SELF', 'GOODS_OR_SERVICES', 'EDUCATION', 'HEALTH_OR_MEDICAL', 'REAL_ESTATE_PURCHASE', 'TAX_PAYMENT', 'LOAN_PAYMENT', 'UTILITY_BILL',
  'DONATION', 'TRAVEL', 'FAMILY_SUPPORT', 'SALARY_PAYMENT', 'OTHER',
];

const PaymentRailSchema = Type.Enum(PAYMENT_RAILS, { description: 'A payment rail' });
const accountRef = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });
const AmountSchema = Type.Integer({
  minimum: 1,
  maximum: 100_000_000_000,
  description: 'In the smallest unit of the accounts\' currency (cents for USD). Required here (the document leaves it optional and says nothing of a transfer without one)',
});
const SANDBOX =
  'Sandbox: the last three digits of the external account\'s identifier (accountNumber, iban, clabeNumber, pixKey, address, ...: its primary identifier) decide the outcome: ' +
  '002 (insufficient funds) and 003 (account closed or invalid) answer 201 with a FAILED transaction at once; 004 (rejected by the bank) is PENDING, then FAILED; ' +
  '005 stays PENDING 30 s of the platform\'s clock, then FAILED; any other completes (PENDING, then COMPLETED within moments). ';

export const TRANSFER_IN_DESCRIPTION =
  'Pulls `amount` from an external account into an internal account of the same owner (a customer, or the platform itself) and currency: 201 with an IncomingTransaction, PENDING, then ' +
  'COMPLETED (the account credited; INCOMING_PAYMENT.COMPLETED and INTERNAL_ACCOUNT.BALANCE_UPDATED) or FAILED (INCOMING_PAYMENT.FAILED, failureReason COLLECTION_FAILED). ' +
  SANDBOX +
  'An unknown, deleted, or another platform\'s, environment\'s or owner\'s external account: 404 REFERENCE_NOT_FOUND, as is an unknown internal account. ' +
  'A wallet still awaiting its ownership verification: 400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED. Another currency, an account not ACTIVE, a customer whose KYC is not APPROVED: 400 INVALID_INPUT naming the field.';

export const TRANSFER_OUT_DESCRIPTION =
  'Pushes `amount` from an internal account to an external account of the same owner (a customer, or the platform itself) and currency: 201 with an OutgoingTransaction. A PENDING one holds ' +
  'the amount at once (the available balance falls, the total does not), then COMPLETED debits it (OUTGOING_PAYMENT.COMPLETED) or FAILED releases it and reports the ' +
  'refund (OUTGOING_PAYMENT.FAILED, then OUTGOING_PAYMENT.REFUND_COMPLETED). An available balance below the amount answers 201 with a FAILED transaction ' +
  '(failureReason QUOTE_EXECUTION_FAILED) and holds nothing, as suffix 002 does; 003 fails ACCOUNT_INVALID, 004 ACCOUNT_CANNOT_RECEIVE, 005 QUOTE_EXECUTION_FAILED (refund reason TIMEOUT). ' +
  SANDBOX +
  'destination.paymentRail must be a rail of the account\'s type (else 400 on it); without it the type\'s first rail is chosen (railSelectionMode AUTO). ' +
  'An unknown, deleted, or another platform\'s, environment\'s or owner\'s external account: 404 REFERENCE_NOT_FOUND.';

export const TransferInBody = Type.Object(
  {
    source: Type.Object({ accountId: accountRef('The customer\'s external account to pull from') }, { additionalProperties: false }),
    destination: Type.Object({ accountId: accountRef('The customer\'s internal account to credit') }, { additionalProperties: false }),
    amount: AmountSchema,
  },
  { additionalProperties: false },
);

export const TransferOutBody = Type.Object(
  {
    source: Type.Object({ accountId: accountRef('The customer\'s internal account to pay from') }, { additionalProperties: false }),
    destination: Type.Object(
      { accountId: accountRef('The customer\'s external account to pay'), paymentRail: Type.Optional(PaymentRailSchema) },
      { additionalProperties: false },
    ),
    amount: AmountSchema,
    remittanceInformation: Type.Optional(Type.String({ maxLength: 80, description: 'Travels with the payment; answered as description' })),
    purposeOfPayment: Type.Optional(Type.Enum(PURPOSES)),
  },
  { additionalProperties: false },
);

const CurrencyAmountSchema = Type.Object({ amount: Type.Integer(), currency: CurrencySchema });
const iso = (description: string) => Type.String({ format: 'date-time', description });
const SourceSchema = Type.Object({ sourceType: Type.Literal('ACCOUNT'), accountId: Type.String(), currency: Type.String() });
const DestinationSchema = Type.Object({ destinationType: Type.Literal('ACCOUNT'), accountId: Type.String(), currency: Type.String() });

const RefundSchema = Type.Object(
  {
    reference: Type.String(),
    initiatedAt: iso('When the refund was initiated'),
    settledAt: Type.Optional(iso('When the refund settled')),
    status: Type.Enum(['PENDING', 'COMPLETED', 'FAILED']),
    reason: Type.Enum(['TRANSACTION_FAILED', 'USER_CANCELLATION', 'TIMEOUT']),
  },
  { description: 'The held amount of a failed or cancelled transfer-out, given back to its internal account' },
);

const common = {
  id: Type.String({ examples: ['Transaction:019542f5-b3e7-7d02-8000-000000000004'] }),
  customerId: Type.String(),
  platformCustomerId: Type.String(),
  sentAmount: CurrencyAmountSchema,
  receivedAmount: CurrencyAmountSchema,
  exchangeRate: Type.Number({ description: '1 for a transfer (one currency); a quote payment\'s rate, sending units per receiving unit' }),
  fees: Type.Integer({ description: 'None on a transfer; a quote payment\'s fees (within sentAmount, all the platform\'s)' }),
  reconciliationInstructions: Type.Object({ reference: Type.String({ description: 'Unique per transaction; the reference filter of GET /transactions' }) }),
  refund: Type.Optional(RefundSchema),
  description: Type.Optional(Type.String({ description: 'The transfer-out\'s remittanceInformation' })),
  settledAt: Type.Optional(iso('When it COMPLETED')),
  receiptDeliveryConfirmedAt: Type.Optional(iso('Set by POST /transactions/{transactionId}/confirm')),
  createdAt: iso('When it was made'),
  updatedAt: iso('When it last changed'),
};

export const IncomingTransactionSchema = Type.Object(
  {
    ...common,
    status: Type.Enum(['PENDING', 'COMPLETED', 'FAILED']),
    type: Type.Literal('INCOMING'),
    direction: Type.Literal('CREDIT'),
    source: Type.Union([SourceSchema, Type.Object({ sourceType: Type.Literal('UMA_ADDRESS'), umaAddress: Type.String(), currency: Type.String() })], { description: 'An external account, or the sender of an incoming UMA payment' }),
    destination: DestinationSchema,
    failureReason: Type.Optional(Type.Enum(['COLLECTION_FAILED', 'COMPLIANCE_REJECTED'], { description: 'Only when FAILED' })),
  },
  { description: 'A transfer-in: money pulled from an external account into an internal account' },
);

export const OutgoingTransactionSchema = Type.Object(
  {
    ...common,
    status: Type.Enum(['PENDING', 'COMPLETED', 'FAILED']),
    type: Type.Literal('OUTGOING'),
    direction: Type.Literal('DEBIT'),
    source: SourceSchema,
    destination: Type.Union([DestinationSchema, Type.Object({ destinationType: Type.Literal('UMA_ADDRESS'), umaAddress: Type.String(), currency: Type.String() })], { description: 'An external account, or the UMA address a quote pays' }),
    platformFees: Type.Integer({ description: 'Credited to the platform\'s own account in the sending currency when a quote payment completes' }),
    quoteId: Type.Optional(Type.String({ description: 'The quote this payment executes (POST /quotes/{quoteId}/execute)' })),
    purposeOfPayment: Type.Optional(Type.Enum(PURPOSES)),
    failureReason: Type.Optional(Type.Enum(['QUOTE_EXECUTION_FAILED', 'ACCOUNT_INVALID', 'ACCOUNT_CANNOT_RECEIVE', 'PAYOUT_RETURNED', 'COMPLIANCE_REJECTED'], { description: 'Only when FAILED' })),
    paymentRail: Type.Union([PaymentRailSchema, Type.Null()], { description: 'The rail it was sent on; null for a wallet' }),
    railSelectionMode: Type.Union([Type.Enum(['AUTO', 'MANUAL']), Type.Null()]),
    expectedSettlementAt: Type.Null({ description: 'Sandbox rails settle as the transfer lands' }),
    settlementTimelineSeconds: Type.Null(),
  },
  { description: 'A transfer-out: money pushed from an internal account to an external account' },
);

export const TransactionIdParamSchema = Type.Object({ transactionId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

export const ConfirmReceiptBody = Type.Object(
  { receiptDeliveryConfirmedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the receipt was delivered; the platform\'s now when omitted' })) },
  { additionalProperties: false },
);
export const ApprovePaymentBody = Type.Object({ receiverCustomerInfo: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: false });
export const ReasonBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 256 })) }, { additionalProperties: false });

export const SandboxUmaReceiveBody = Type.Object(
  {
    senderUmaAddress: Type.String({ minLength: 1, maxLength: 256, description: 'One of the sandbox UMA addresses' }),
    receiverUmaAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "The receiving customer's UMA address (or customerId)" })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'The receiving customer (or receiverUmaAddress)' })),
    receivingCurrencyCode: Type.String({ minLength: 3, maxLength: 5 }),
    receivingCurrencyAmount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  },
  { additionalProperties: false },
);

export const SandboxSendBody = Type.Object(
  {
    quoteId: Type.String({ minLength: 1, maxLength: 128, description: 'A real-time funded quote' }),
    currencyCode: Type.String({ minLength: 3, maxLength: 5, description: "The quote's sending currency" }),
    currencyAmount: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "The quote's totalSendingAmount when given" })),
  },
  { additionalProperties: false },
);
