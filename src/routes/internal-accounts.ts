import { errorResponses, pageSchema } from '../schemas/common.js';
import {
  AccountIdParamSchema,
  FundInternalAccountBody,
  InternalAccountSchema,
  ListInternalAccountsQuery,
  ListPlatformInternalAccountsQuery,
  PlatformInternalAccountListSchema,
} from '../schemas/internal-accounts.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

export const internalAccountRoutes: RouteModule = (app, { internalAccounts, platformAccounts }) => {
  app.get(
    '/customers/internal-accounts',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags: ['Internal Accounts'],
        summary: 'List customer internal accounts',
        description:
          'Every customer has a USD INTERNAL_FIAT account, and one account per currency of its `currencies` that the platform supports (GET /config), ' +
          'opened when the customer is created or its currencies change (never closed). Filters combine; an unknown customerId matches nothing. ' +
          'Oldest first, keyset-paginated like every list.',
        querystring: ListInternalAccountsQuery,
        response: { 200: pageSchema(InternalAccountSchema, 'A page of internal accounts'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, customerId, currency, type } = request.query;
      return internalAccounts.list(request.principal.platformId, limit ?? 20, cursor, { customerId, currency, type });
    },
  );

  app.get(
    '/platform/internal-accounts',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags: ['Internal Accounts'],
        summary: 'List platform internal accounts',
        description:
          "The platform's own accounts, no customerId: one per currency of its supportedCurrencies (USD always), opened when first listed after the currency is configured " +
          'and kept if it is removed. Filters combine. Oldest first, not paginated.',
        querystring: ListPlatformInternalAccountsQuery,
        response: { 200: PlatformInternalAccountListSchema, ...errorResponses(400) },
      },
    },
    async (request) => platformAccounts.list(request.principal.platformId, { currency: request.query.currency, type: request.query.type }),
  );
};

export const sandboxInternalAccountRoutes: RouteModule = (app, { internalAccounts }) => {
  app.post(
    '/sandbox/internal-accounts/:accountId/fund',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT' },
      schema: {
        tags: ['Sandbox'],
        summary: 'Fund an internal account',
        description:
          'Credits the account (both balances rise by the amount) and answers it; an INTERNAL_ACCOUNT.BALANCE_UPDATED webhook follows. ' +
          'Unknown or foreign account: 404 REFERENCE_NOT_FOUND. Production: 404, as for an unknown path.',
        params: AccountIdParamSchema,
        body: FundInternalAccountBody,
        response: { 200: InternalAccountSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => internalAccounts.fund(request.principal.platformId, request.params.accountId, request.body.amount, requestUnitOfWork(request)),
  );
};
