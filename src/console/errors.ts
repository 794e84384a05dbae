import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { toApiError } from '../http/error-handler.js';
import { isLiveRefresh } from './pages/list-query.js';
import { renderFragment, renderPage } from './render.js';

/** Every console failure as a page: the same codes and messages as the API, for a person. */
export async function renderConsoleError(this: unknown, err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const error = err.code?.startsWith('FST_CSRF')
    ? new ApiError('FORBIDDEN', 'The form was sent without a valid CSRF token: reload the page and send it again.')
    : toApiError(err, request);
  if (error.status >= 500) request.log.error({ err }, 'console request failed');
  const message = error.status >= 500 ? 'Something went wrong on the server; the log has the details.' : error.message;
  const errors = (error.details?.errors ?? []) as { field: string; message: string }[];
  if (error.headers) reply.headers(error.headers);
  reply.removeHeader('www-authenticate');
  // A live region's poll gets a fragment that takes the region's place (and stops its polling).
  if (isLiveRefresh(request.headers)) return renderFragment(reply.code(error.status), 'partials/error', { message });
  return renderPage(request, reply.code(error.status), 'error', { title: `${error.status} ${error.code}`, message, errors });
}
