import { Type } from 'typebox';
import { QUOTE_STATUSES } from '../domain/quotes/render.js';
import { CurrencySchema } from './cards.js';
import { tagged } from './external-account-info.js';
import { PaymentInstructionsSchema } from './internal-accounts.js';
import { text } from './fields.js';

const id = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });
const code = (description: string) => Type.String({ pattern: '^[A-Z0-9]{3,5}$', description });

const AccountSource = Type.Object(
  {
    sourceType: Type.Literal('ACCOUNT'),
    accountId: id("An internal account of the platform or of one of its customers; its currency is the sending currency"),
    customerId: Type.Optional(id('The customer on whose behalf; by default the account\'s owner')),
  },
  { additionalProperties: false, title: 'Account' },
);
const RealtimeSource = Type.Object(
  {
    sourceType: Type.Literal('REALTIME_FUNDING'),
    customerId: Type.Optional(id("The customer paying; absent: the platform itself")),
    currency: code('The sending currency; the quote carries paymentInstructions in it'),
    cryptoNetwork: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'The network of a stablecoin deposit' })),
  },
  { additionalProperties: false, title: 'Real-time Funding' },
);
const AccountDestination = Type.Object(
  {
    destinationType: Type.Literal('ACCOUNT'),
    accountId: id('An external account (of any owner of the platform) or an internal account; its currency is the receiving currency'),
    paymentRail: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'Recorded as given' })),
  },
  { additionalProperties: false, title: 'Account' },
);
const UmaDestination = Type.Object(
  {
    destinationType: Type.Literal('UMA_ADDRESS'),
    umaAddress: Type.String({ minLength: 1, maxLength: 255, description: 'A sandbox UMA address (docs: Quotes) or a customer\'s of this platform' }),
    currency: Type.Optional(code('One the address receives; by default its first')),
  },
  { additionalProperties: false, title: 'UMA Address' },
);

export const QuoteSourceSchema = tagged('sourceType', [AccountSource, RealtimeSource], 'ACCOUNT or REALTIME_FUNDING');
export const QuoteDestinationSchema = tagged('destinationType', [AccountDestination, UmaDestination], 'ACCOUNT or UMA_ADDRESS');

export const CreateQuoteBody = Type.Object(
  {
    lookupId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'From a receiver lookup; accepted, not required' })),
    source: QuoteSourceSchema,
    destination: QuoteDestinationSchema,
    lockedCurrencySide: Type.Enum(['SENDING', 'RECEIVING'], { description: 'SENDING: lockedCurrencyAmount is totalSendingAmount, fees included; RECEIVING: it is totalReceivingAmount' }),
    lockedCurrencyAmount: Type.Integer({ exclusiveMinimum: 0, maximum: 9_000_000_000_000_000, description: 'Minor units of the locked side\'s currency' }),
    immediatelyExecute: Type.Optional(Type.Boolean({ description: 'true: 501 NOT_IMPLEMENTED until quote execution is built' })),
    description: Type.Optional(text(500, 'Free text kept with the quote')),
    remittanceInformation: Type.Optional(Type.String({ maxLength: 80 })),
    purposeOfPayment: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    senderCustomerInfo: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

export const QuoteSchema = Type.Object(
  {
    id: Type.String({ examples: ['Quote:019542f5-b3e7-7d02-8000-000000000006'] }),
    status: Type.Enum([...QUOTE_STATUSES], { description: "PENDING until executed; a PENDING quote past expiresAt (on the platform's sandbox clock) reads EXPIRED" }),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time', description: "Five minutes after createdAt on the platform's clock" }),
    source: QuoteSourceSchema,
    destination: QuoteDestinationSchema,
    sendingCurrency: CurrencySchema,
    receivingCurrency: CurrencySchema,
    totalSendingAmount: Type.Integer({ exclusiveMinimum: 0, description: 'Everything the sender pays, fees included, minor units' }),
    totalReceivingAmount: Type.Integer({ exclusiveMinimum: 0, description: 'What the receiver gets, minor units' }),
    exchangeRate: Type.Number({ exclusiveMinimum: 0, description: 'Sending units per receiving unit (the arithmetic uses the exact rate)' }),
    feesIncluded: Type.Integer({ minimum: 0, description: 'Fees within totalSendingAmount, minor units of the sending currency' }),
    platformFeesIncluded: Type.Integer({ minimum: 0, description: "The platform's CROSS_CURRENCY_TRANSACTION fee (feeConfigs) within feesIncluded; the sandbox adds none of its own" }),
    paymentInstructions: Type.Optional(Type.Array(PaymentInstructionsSchema, { description: 'Real-time funding only: where to pay the quote' })),
    transactionId: Type.String({ description: 'The id the transaction executing this quote will have (404 until then)' }),
  },
  { description: 'A cross-currency quote' },
);

export const QuoteIdParamSchema = Type.Object({ quoteId: id('The quote') }, { additionalProperties: false });
