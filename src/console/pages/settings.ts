import { renderPage, sessionOf } from '../render.js';
import type { PageModule } from './index.js';
import { listQuery, PAGE_SIZE } from './list-query.js';

export const settingsPages: PageModule = (scope, { services }) => {
  scope.get('/settings', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { cursor, filters } = listQuery(request.query, { name: 'text' });
    const [tokens, config] = await Promise.all([services.tokens.list(platformId, PAGE_SIZE, cursor, filters), services.platformConfig.getWithoutSecret(platformId)]);
    return renderPage(request, reply, 'settings', { title: 'Tokens and configuration', page: tokens, filters, cursor, config });
  });
};
