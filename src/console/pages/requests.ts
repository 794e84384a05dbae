import type { RequestLogView } from '../../domain/request-logs/request-log.js';
import { renderFragment, renderPage, sessionOf } from '../render.js';
import { formInstant } from '../time-input.js';
import type { PageModule } from './index.js';
import { isLiveRefresh, listQuery, PAGE_SIZE } from './list-query.js';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/** A status typed in the filter: a whole HTTP status, else no filter (as a select drops a value it does not offer). */
function statusFilter(value: string | undefined): number | undefined {
  const n = value === undefined ? NaN : Number(value);
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
}

/** A stored body indented for reading; one cut at the size limit is shown as stored. */
function pretty(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export const requestPages: PageModule = (scope, { services }) => {
  scope.get('/requests', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const q = (request.query ?? {}) as Record<string, unknown>;
    const { cursor, filters } = listQuery(q, { method: METHODS, path: 'text', status: 'text' });
    const status = statusFilter(filters.status);
    const path = filters.path === undefined || filters.path.startsWith('/') ? filters.path : `/${filters.path}`;
    const from = formInstant('from', q.from);
    const to = formInstant('to', q.to);
    const shown = { method: filters.method, path, status: status?.toString(), from, to };
    const page = await services.requestLogs.list(platformId, PAGE_SIZE, cursor, { method: filters.method, path, status, from, to });
    const data = { page, filters: shown, cursor, live: cursor === undefined };
    if (isLiveRefresh(request.headers)) return renderFragment(reply, 'partials/requests-table', data);
    return renderPage(request, reply, 'requests', { title: 'Requests', ...data, methods: METHODS, enabled: services.requestLogs.enabled });
  });

  scope.get('/requests/:id', async (request, reply) => {
    const { platformId } = sessionOf(request);
    const entry: RequestLogView = await services.requestLogs.get(platformId, (request.params as { id: string }).id);
    return renderPage(request, reply, 'request', {
      title: `Request ${entry.id}`,
      entry,
      requestBody: pretty(entry.requestBody),
      responseBody: pretty(entry.responseBody),
    });
  });
};
