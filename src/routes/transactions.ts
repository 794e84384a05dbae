import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { CardTransactionSchema, ListTransactionsQuery } from '../schemas/transactions.js';
import { memberOf, type RouteModule } from './types.js';

const tags = ['Transactions'];

export const transactionRoutes: RouteModule = (app, { cards }) => {
  app.get(
    '/transactions',
    {
      config: { permission: 'VIEW', references: (request) => cards.referenceErrors(request.principal.platformId, { cardId: memberOf(request.query, 'cardId') }) },
      schema: {
        tags,
        summary: 'List transactions',
        description:
          'Card transactions (type CARD), newest first unless sortOrder=asc, keyset-paginated; a cursor continues only the filters and order it ' +
          'was issued for (else 400 on cursor). A transaction appears once its authorization has landed. An unknown or foreign cardId is a ' +
          '400 INVALID_INPUT on that field; an unknown customerId or platformCustomerId matches nothing. startDate and endDate bound createdAt, ' +
          'both inclusive.',
        querystring: ListTransactionsQuery,
        response: { 200: pageSchema(CardTransactionSchema, 'A page of transactions'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, sortOrder, ...filters } = request.query;
      return cards.listTransactions(request.principal.platformId, limit ?? 20, cursor, { ...filters, sortOrder: sortOrder ?? 'desc' });
    },
  );

  app.get(
    '/transactions/:id',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Get a transaction',
        description:
          'Until its authorization lands, a card transaction answers 404 TRANSACTION_NOT_FOUND, as an unknown or foreign one does. A declined ' +
          'authorization is a transaction with status DECLINED and its declineReason.',
        params: IdParamSchema,
        response: { 200: CardTransactionSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => cards.getTransaction(request.principal.platformId, request.params.id),
  );
};
