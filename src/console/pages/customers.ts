import { CUSTOMER_TYPES } from '../../domain/customers/customers.js';
import { renderPage, sessionOf } from '../render.js';
import type { PageModule } from './index.js';
import { listQuery, PAGE_SIZE } from './list-query.js';

export const customerPages: PageModule = (scope, { services }) => {
  scope.get('/customers', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { cursor, filters } = listQuery(request.query, { customerType: CUSTOMER_TYPES, platformCustomerId: 'text' });
    const page = await services.customers.list(platformId, PAGE_SIZE, cursor, filters as never);
    return renderPage(request, reply, 'customers', { title: 'Customers', page, filters, cursor, customerTypes: CUSTOMER_TYPES });
  });

  scope.get('/customers/:id', async (request, reply) => {
    const { platformId, tokenId } = sessionOf(request);
    const { id } = request.params as { id: string };
    const customer = await services.customers.get(platformId, id);
    const [accounts, cards, owners] = await Promise.all([
      services.internalAccounts.list(platformId, 100, undefined, { customerId: id }),
      services.cards.list(platformId, 100, undefined, { cardholderId: id, sortOrder: 'desc' }),
      customer.customerType === 'BUSINESS' ? services.beneficialOwners.list(tokenId, platformId, id, 100, undefined) : undefined,
    ]);
    const ownerList = owners ? (JSON.parse(`[${owners.ownersJson.toString('utf8')}]`) as Record<string, unknown>[]) : [];
    return renderPage(request, reply, 'customer', { title: `Customer ${customer.id}`, customer, accounts: accounts.data, cards: cards.data, owners: ownerList });
  });
};
