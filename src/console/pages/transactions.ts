import { CARD_TRANSACTION_STATUSES } from '../../domain/cards/card-transactions.js';
import { renderFragment, renderPage, sessionOf } from '../render.js';
import type { PageModule } from './index.js';
import { isLiveRefresh, listQuery, PAGE_SIZE } from './list-query.js';

export const transactionPages: PageModule = (scope, { services }) => {
  scope.get('/transactions', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { cursor, filters } = listQuery(request.query, { status: CARD_TRANSACTION_STATUSES, cardId: 'text', customerId: 'text' });
    const page = await services.cards.listTransactions(platformId, PAGE_SIZE, cursor, { ...filters, sortOrder: 'desc' });
    const data = { page, filters, cursor, live: cursor === undefined };
    if (isLiveRefresh(request.headers)) return renderFragment(reply, 'partials/transactions-table', data);
    return renderPage(request, reply, 'transactions', { title: 'Transactions', ...data, statuses: CARD_TRANSACTION_STATUSES });
  });

  scope.get('/transactions/:id', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const transaction = await services.cards.getTransaction(platformId, (request.params as { id: string }).id);
    return renderPage(request, reply, 'transaction', { title: `Transaction ${transaction.id}`, transaction });
  });
};
