import { listDiscoveries, listUmaProviders, fixedPage, SANDBOX_VASPS } from '../domain/uma/directory.js';
import { errorResponses } from '../schemas/common.js';
import { DiscoveriesQuery, DiscoveryListSchema, UmaProviderListSchema, UmaProvidersQuery, VaspListSchema, VaspsQuery } from '../schemas/directory.js';
import type { RouteModule } from './types.js';

/** The sandbox's fixed directories: UMA providers, receiving institutions, VASPs (docs/quotes.md lists them). */
export const directoryRoutes: RouteModule = (app) => {
  app.get(
    '/uma-providers',
    {
      config: { permission: 'VIEW' },
      schema: { tags: ['Available UMA Providers'], summary: 'List available UMA providers', description: 'The sandbox\'s fixed list, by name (desc by default).', querystring: UmaProvidersQuery, response: { 200: UmaProviderListSchema, ...errorResponses(400) } },
    },
    async (request) => listUmaProviders(request.query),
  );

  app.get(
    '/discoveries',
    {
      config: { permission: 'VIEW' },
      schema: { tags: ['Discoveries'], summary: 'List receiving institutions', description: 'The sandbox\'s fixed list, filtered by country and currency.', querystring: DiscoveriesQuery, response: { 200: DiscoveryListSchema, ...errorResponses(400) } },
    },
    async (request) => listDiscoveries(request.query),
  );

  app.get(
    '/vasps',
    {
      config: { permission: 'VIEW' },
      schema: { tags: ['VASPs'], summary: 'List VASPs', description: 'The sandbox\'s fixed directory.', querystring: VaspsQuery, response: { 200: VaspListSchema, ...errorResponses(400) } },
    },
    async (request) => fixedPage(SANDBOX_VASPS, request.query.limit ?? 20, request.query.cursor),
  );
};
