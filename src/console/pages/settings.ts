import { ValidationError } from '../../domain/shared/errors.js';
import { renderPage, requirePermission, sessionOf } from '../render.js';
import type { PageModule } from './index.js';
import { listQuery, PAGE_SIZE } from './list-query.js';

const DAY_SECONDS = 86_400;

export const settingsPages: PageModule = (scope, { services }) => {
  scope.get('/settings', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const { cursor, filters } = listQuery(request.query, { name: 'text' });
    const [tokens, config] = await Promise.all([services.tokens.list(platformId, PAGE_SIZE, cursor, filters), services.platformConfig.getWithoutSecret(platformId)]);
    const { advanced } = request.query as { advanced?: string };
    const to = Date.parse(advanced ?? '');
    const notice = Number.isNaN(to) ? undefined : `Clock advanced to ${new Date(to).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z')}.`;
    return renderPage(request, reply, 'settings', { title: 'Tokens and configuration', page: tokens, filters, cursor, config, notice });
  });

  // The same service as POST /sandbox/clock/advance: answers once what fell due has landed.
  scope.post('/settings/clock', async (request, reply) => {
    const { platformId } = requirePermission(request, 'TRANSACT');
    const seconds = formDays((request.body as Record<string, unknown> | undefined)?.days);
    const reading = await services.sandboxClock.advance(platformId, { seconds }, request.log);
    return reply.redirect(`/console/settings?advanced=${encodeURIComponent(reading.now)}`, 303);
  });
};

/** The form's days (fractions allowed, e.g. 0.5) as whole seconds, at least one. */
function formDays(value: unknown): number {
  const text = typeof value === 'string' ? value.trim() : '';
  const days = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  const seconds = Math.round(days * DAY_SECONDS);
  if (!Number.isFinite(seconds) || seconds < 1) throw new ValidationError([{ field: 'days', message: 'must be a positive number of days (at least one second)' }]);
  return seconds;
}
