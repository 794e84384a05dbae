import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.js';
import { toApiError } from '../http/error-handler.js';
import { renderPage } from './render.js';

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
  return renderPage(request, reply.code(error.status), 'error', { title: `${error.status} ${error.code}`, message, errors });
}
