import { CARD_TRANSACTION_STATUSES } from '../../domain/cards/card-transactions.js';
import { PAYMENT_STATUSES } from '../../domain/payments/payment-transactions.js';
import { renderFragment, renderPage, sessionOf } from '../render.js';
import type { PageModule } from './index.js';
import { isLiveRefresh, listQuery, PAGE_SIZE } from './list-query.js';

const STATUSES = [...new Set<string>([...PAYMENT_STATUSES, ...CARD_TRANSACTION_STATUSES])];
const TYPES = ['CARD', 'INCOMING', 'OUTGOING'] as const;

export const transactionPages: PageModule = (scope, { services }) => {
  // Every kind (card transactions and transfers in and out) from the one list GET /transactions reads.
  scope.get('/transactions', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { cursor, filters } = listQuery(request.query, { type: TYPES, status: STATUSES, cardId: 'text', customerId: 'text' });
    const page = await services.transactions.list(platformId, PAGE_SIZE, cursor, { ...filters, sortOrder: 'desc' });
    const data = { page, filters, cursor, live: cursor === undefined };
    if (isLiveRefresh(request.headers)) return renderFragment(reply, 'partials/transactions-table', data);
    return renderPage(request, reply, 'transactions', { title: 'Transactions', ...data, statuses: STATUSES, types: TYPES });
  });

  scope.get('/transactions/:id', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const transaction = await services.transactions.get(platformId, (request.params as { id: string }).id);
    const view = transaction.type === 'CARD' ? 'transaction' : 'payment-transaction';
    return renderPage(request, reply, view, { title: `Transaction ${transaction.id}`, transaction });
  });
};
