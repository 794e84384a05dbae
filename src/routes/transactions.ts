import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { instant } from '../domain/shared/pagination.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { CardTransactionSchema, ListTransactionsQuery } from '../schemas/transactions.js';
import { ApprovePaymentBody, ConfirmReceiptBody, IncomingTransactionSchema, OutgoingTransactionSchema, ReasonBody, TransactionIdParamSchema } from '../schemas/transfers.js';
import { memberOf, type RouteModule } from './types.js';

const tags = ['Transactions'];
const TransactionSchema = Type.Union([IncomingTransactionSchema, OutgoingTransactionSchema, CardTransactionSchema], { description: 'An incoming, outgoing or card transaction, told apart by type' });
// The union is documented, not compiled into a serializer: the domain renders exactly the answer.
const serializerCompiler = () => (data: unknown) => JSON.stringify(data);
const APPROVAL =
  'For incoming UMA payments waiting for the platform\'s decision: POST /sandbox/uma/receive makes one when the platform\'s config lists requiredCounterpartyFields for the receiving currency. ' +
  'Approve credits the customer\'s internal account (COMPLETED); reject fails it (COMPLIANCE_REJECTED); INCOMING_PAYMENT.* webhooks. Any other transaction (a transfer-in is informational) answers ' +
  '409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL; an unknown one 404 TRANSACTION_NOT_FOUND.';

/** The document's request body is optional on these operations: none reads as an empty one. */
async function noBodyIsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export const transactionRoutes: RouteModule = (app, { cards, transactions }) => {
  app.get(
    '/transactions',
    {
      config: { permission: 'VIEW', references: (request) => cards.referenceErrors(request.principal.platformId, { cardId: memberOf(request.query, 'cardId') }) },
      serializerCompiler,
      schema: {
        tags,
        summary: 'List transactions',
        description:
          'Incoming and outgoing transfers (type INCOMING, OUTGOING) and card transactions (type CARD) in one list, newest first unless sortOrder=asc, ' +
          'keyset-paginated; a cursor continues only the filters and order it was issued for (else 400 on cursor). A card transaction appears once its ' +
          'authorization has landed. An unknown or foreign cardId is a 400 INVALID_INPUT on that field (and cardId leaves card transactions only); an unknown ' +
          'customerId or platformCustomerId matches nothing. startDate and endDate bound createdAt, both inclusive. accountIdentifier, senderAccountIdentifier ' +
          '(the external account of a transfer-in), receiverAccountIdentifier (of a transfer-out) and reference (reconciliationInstructions.reference) match transfers only.',
        querystring: ListTransactionsQuery,
        response: { 200: pageSchema(TransactionSchema, 'A page of transactions'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, sortOrder, ...filters } = request.query;
      return (await transactions.list(request.principal.platformId, limit ?? 20, cursor, { ...filters, sortOrder: sortOrder ?? 'desc' })) as never;
    },
  );

  app.get(
    '/transactions/:id',
    {
      config: { permission: 'VIEW' },
      serializerCompiler,
      schema: {
        tags,
        summary: 'Get a transaction',
        description:
          'An IncomingTransaction, OutgoingTransaction or CardTransaction. Until its authorization lands, a card transaction answers 404 TRANSACTION_NOT_FOUND, as an ' +
          'unknown or foreign one does. A declined authorization is a transaction with status DECLINED and its declineReason.',
        params: IdParamSchema,
        response: { 200: TransactionSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => (await transactions.get(request.principal.platformId, request.params.id)) as never,
  );

  app.post(
    '/transactions/:transactionId/confirm',
    {
      config: { permission: 'TRANSACT' },
      preValidation: noBodyIsEmpty,
      serializerCompiler,
      schema: {
        tags,
        summary: 'Confirm receipt delivery',
        description:
          'Records receiptDeliveryConfirmedAt on a transfer (the platform\'s now when omitted); again replaces it. A card transaction: 400 on transactionId; unknown: 404 TRANSACTION_NOT_FOUND.',
        params: TransactionIdParamSchema,
        body: ConfirmReceiptBody,
        response: { 200: Type.Union([IncomingTransactionSchema, OutgoingTransactionSchema]), ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => {
      const at = instant('receiptDeliveryConfirmedAt', request.body.receiptDeliveryConfirmedAt);
      return (await transactions.confirm(request.principal.platformId, request.params.transactionId, at, requestUnitOfWork(request))) as never;
    },
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/transactions/:transactionId/${decision}`,
      {
        config: { permission: 'TRANSACT' },
        preValidation: noBodyIsEmpty,
        serializerCompiler,
        schema: {
          tags,
          summary: decision === 'approve' ? 'Approve a pending incoming payment' : 'Reject a pending incoming payment',
          description: APPROVAL,
          params: TransactionIdParamSchema,
          body: decision === 'approve' ? ApprovePaymentBody : ReasonBody,
          response: { 200: IncomingTransactionSchema, ...errorResponses(400, 404, 409, 415) },
        },
      },
      async (request) => (await transactions.decide(request.principal.platformId, request.params.transactionId, decision, requestUnitOfWork(request))) as never,
    );
  }

  app.post(
    '/transactions/:transactionId/cancel',
    {
      config: { permission: 'TRANSACT' },
      preValidation: noBodyIsEmpty,
      serializerCompiler,
      schema: {
        tags,
        summary: 'Cancel a bank transfer',
        description:
          'Cancels a PENDING transfer in or out before it settles: it becomes FAILED (INCOMING_PAYMENT.FAILED, or OUTGOING_PAYMENT.FAILED then ' +
          'OUTGOING_PAYMENT.REFUND_COMPLETED with the hold returned, refund reason USER_CANCELLATION). COMPLETED or FAILED: 409 TRANSACTION_NOT_CANCELLABLE. ' +
          'A card transaction is not a bank transfer: 400 on transactionId. Unknown: 404 TRANSACTION_NOT_FOUND.',
        params: TransactionIdParamSchema,
        body: ReasonBody,
        response: { 200: Type.Union([IncomingTransactionSchema, OutgoingTransactionSchema]), ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => (await transactions.cancel(request.principal.platformId, request.params.transactionId, requestUnitOfWork(request))) as never,
  );
};
