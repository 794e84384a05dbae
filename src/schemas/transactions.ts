import { Type } from 'typebox';
import { CARD_TRANSACTION_STATUSES, DECLINE_REASONS, DIRECTIONS, OPERATION_KINDS } from '../domain/cards/card-transactions.js';
import { CurrencySchema } from './cards.js';
import { extension, PageQuerySchema, SortOrderSchema } from './common.js';

const CurrencyAmountSchema = Type.Object({
  amount: Type.Integer({ description: 'In the smallest unit of the currency (cents for USD)' }),
  currency: CurrencySchema,
});

const SummarySchema = (what: string) =>
  Type.Object({ count: Type.Integer({ description: `Number of ${what}` }), totalAmount: Type.Integer({ description: `Sum of the ${what}, in minor units` }) });

const PullSummarySchema = Type.Object(
  {
    count: Type.Integer({
      description:
        "Pulls on the funding source: the authorization's, then one per clearing that settled above the authorized amount (a post-hoc pull). " +
        'An authorization declined INSUFFICIENT_FUNDS counts its failed pull; one declined CARD_PAUSED or SPEND_LIMIT_EXCEEDED made none',
    }),
    totalAmount: Type.Integer({ description: 'What the pulls took, in minor units; a pull reported failed counts 0. An expiry releases the hold without changing it' }),
    pendingCount: Type.Integer({
      description: 'Pulls not reported yet: the pull of an authorization whose descriptor ends in 005 until it is confirmed (SANDBOX_DELAYED_PULL_MS)',
    }),
  },
  { description: 'The pulls (debits) made on the funding source for this transaction' },
);

const CardOperationSchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.Enum([...OPERATION_KINDS], {
      description:
        'A simulator\'s operation (AUTHORIZATION_ADVICE re-sizes the authorization: its amount is the new total), or the issuer\'s report on the pull of an approved authorization: PULL_CONFIRMATION (descriptor suffix 005, ' +
        'after SANDBOX_DELAYED_PULL_MS) or PULL_FAILURE (suffix 006, at once; the transaction becomes EXCEPTION)',
    }),
    amount: Type.Optional(
      Type.Integer({
        description:
          'What the operation moved; for an expiry the released hold, for a return reversal the reversed return, for a pull report the pull; ' +
          'for a declined authorization the amount asked for',
      }),
    ),
    issuerTransactionToken: Type.String({ description: 'The token the simulate call answered with' }),
    status: Type.Enum(['PENDING', 'LANDED', 'REJECTED'], {
      description:
        'PENDING: accepted, not processed yet. LANDED: applied. REJECTED: did not apply when processed (a declined authorization, or an ' +
        'operation the transaction no longer allowed); changed no balance',
    }),
    reason: Type.Optional(
      Type.String({ description: 'Why a REJECTED operation did not apply; for a declined authorization it starts with the declineReason, e.g. "INSUFFICIENT_FUNDS: ..."' }),
    ),
    acceptedAt: Type.String({ format: 'date-time' }),
    processedAt: Type.Optional(Type.String({ format: 'date-time', description: 'When it landed or was rejected' })),
  },
  { description: 'One card operation (issuer event) against the transaction' },
);

export const CardTransactionSchema = Type.Object(
  {
    id: Type.String({ examples: ['CardTransaction:019542f5-b3e7-7d02-8000-000000000100'] }),
    type: Type.Literal('CARD'),
    status: Type.Enum([...CARD_TRANSACTION_STATUSES], {
      ...extension('The statuses EXPIRED (authorization_expiry, or a clearing of amount 0) and DECLINED (a declined authorization, with declineReason)'),
      description:
        'AUTHORIZED: held, nothing settled. PARTIALLY_SETTLED: part settled. SETTLED: all settled. REFUNDED: the net settled amount ' +
        'was returned in full; a financial (single-message) authorization lands SETTLED at once, as does an approved balance inquiry, with nothing ' +
        'authorized or settled. EXCEPTION: the pull on the funding source was reported failed (descriptor suffix 006); the amount stays held. ' +
        'EXPIRED: the authorization lapsed; the hold is released. DECLINED: the authorization was declined (declineReason); nothing was held, ' +
        'and every simulator on it is a 409',
    }),
    declineReason: Type.Optional(
      Type.Enum([...DECLINE_REASONS], {
        ...extension('The property declineReason'),
        description:
          'Only on a DECLINED transaction. CARD_PAUSED: the card was not ACTIVE when the authorization landed, or the descriptor ends in 003. ' +
          'SPEND_LIMIT_EXCEEDED (this service\'s; the document names no reason for it): the amount was above the card\'s maxSpendPerTransaction. ' +
          'INSUFFICIENT_FUNDS: no funding source had the amount available, or the descriptor ends in 002',
      }),
    ),
    direction: Type.Enum([...DIRECTIONS], {
      description:
        'DEBIT: money out of the funding account (authorization, financial_authorization, balance_inquiry). CREDIT: money into it ' +
        '(credit_authorization, credit_authorization_advice, financial_credit_authorization); a CREDIT holds nothing, and its clearings credit the account',
    }),
    cardId: Type.String(),
    accountId: Type.String({
      description:
        "The internal account that funds the transaction: the card's first funding source with the amount available when the authorization " +
        "landed (the cardholder's account in the card's currency for a card without funding sources). A declined one names the first it would have tried",
    }),
    customerId: Type.String({ description: 'The cardholder' }),
    platformCustomerId: Type.String({ description: "The cardholder's platform-specific customer id" }),
    merchant: Type.Object({ descriptor: Type.String(), mcc: Type.Optional(Type.String()), country: Type.Optional(Type.String()) }),
    authorizedAmount: CurrencyAmountSchema,
    settledAmount: CurrencyAmountSchema,
    refundedAmount: CurrencyAmountSchema,
    pullSummary: PullSummarySchema,
    settlementSummary: SummarySchema('clearings that settled an amount'),
    refundSummary: SummarySchema('returns, less those reversed'),
    issuerTransactionToken: Type.String({ description: "The authorization's issuer transaction token" }),
    authorizedAt: Type.String({ format: 'date-time' }),
    lastEventAt: Type.String({ format: 'date-time' }),
    createdAt: Type.String({ format: 'date-time', description: 'Same as authorizedAt' }),
    updatedAt: Type.String({ format: 'date-time' }),
    operations: Type.Array(CardOperationSchema, {
      ...extension('The property operations'),
      description: 'Every operation accepted against the transaction, in acceptance order',
    }),
  },
  { description: 'A card transaction: an authorization and everything reconciled against it' },
);

/** The document's TransactionStatus values, then the card transaction statuses it lacks there. */
const TRANSACTION_STATUSES = ['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'];
const FILTER_STATUSES = [...TRANSACTION_STATUSES, ...CARD_TRANSACTION_STATUSES.filter((s) => !TRANSACTION_STATUSES.includes(s))];

const text = (maxLength: number, description: string) => Type.Optional(Type.String({ minLength: 1, maxLength, description }));
const instant = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));
const NOT_ON_CARDS = 'transfers only (card transactions have none)';

export const ListTransactionsQuery = Type.Object(
  {
    ...PageQuerySchema,
    cardId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, ...extension('The cardId filter'), description: "Only this card's transactions; an unknown card is a 400 on cardId" }),
    ),
    customerId: text(128, 'Only transactions of this customer (cardholder)'),
    platformCustomerId: text(128, "Only transactions of the customer with this platform-specific id"),
    accountIdentifier: text(256, `Sender or receiver account identifier: ${NOT_ON_CARDS}`),
    senderAccountIdentifier: text(256, `Sender account identifier: ${NOT_ON_CARDS}`),
    receiverAccountIdentifier: text(256, `Receiver account identifier: ${NOT_ON_CARDS}`),
    status: Type.Optional(
      Type.Enum(FILTER_STATUSES, {
        ...extension('The card transaction statuses AUTHORIZED, PARTIALLY_SETTLED, SETTLED, EXCEPTION and DECLINED as values'),
        description: 'Only transactions in this status: transfers are PENDING, COMPLETED or FAILED; card transactions have their own statuses',
      }),
    ),
    type: Type.Optional(
      Type.Enum(['INCOMING', 'OUTGOING', 'CARD'], {
        ...extension('The value CARD'),
        description: 'Only transactions of this type: INCOMING (transfers in), OUTGOING (transfers out) or CARD',
      }),
    ),
    reference: text(256, `Payment reference: ${NOT_ON_CARDS}`),
    startDate: instant('Only transactions created at or after this time (ISO 8601)'),
    endDate: instant('Only transactions created at or before this time (ISO 8601)'),
    sortOrder: Type.Optional(SortOrderSchema),
  },
  { additionalProperties: false },
);
