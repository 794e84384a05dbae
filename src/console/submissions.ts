import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { isSubmissionToken, type SubmissionKey } from '../domain/platform/form-submissions.js';
import { ApiError } from '../http/api-error.js';
import type { ConsoleContext } from './index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A console form's first submission with its page's token, ended when the answer goes out. */
    formSubmission?: SubmissionKey;
  }
}

/** The hidden field every console form carries: its page's token (see FormSubmissions). */
export const SUBMISSION_FIELD = '_submission';

/**
 * Every console form is done once per rendered page: a POST carrying its page's token that was
 * sent before is redirected where the first one went (after waiting for it to finish), and the
 * work is not done again. A form without a token is handled as it comes.
 */
export function guardFormSubmissions(pages: FastifyInstance, { services }: ConsoleContext): void {
  pages.addHook('preHandler', async (request, reply) => {
    const principal = request.consoleSession;
    const token = (request.body as Record<string, unknown> | undefined)?.[SUBMISSION_FIELD];
    if (request.method !== 'POST' || principal === undefined || !isSubmissionToken(token)) return;
    const key = { platformId: principal.platformId, token, path: request.url.split('?')[0]!, bodySha256: valuesDigest(request.body as Record<string, unknown>) };
    const start = await services.formSubmissions.start(key);
    if (start.outcome === 'done') return reply.redirect(start.location, 303);
    if (start.outcome === 'running') throw new ApiError('CONFLICT', 'This form was sent already and is still being done: reload the page in a moment to see what it made.');
    request.formSubmission = key;
  });
  pages.addHook('onSend', async (request, reply, payload) => {
    const key = request.formSubmission;
    if (key === undefined) return payload;
    request.formSubmission = undefined;
    const location = reply.statusCode === 303 ? reply.getHeader('location') : undefined;
    // The work is done whatever happens here: its answer goes out. A token left unfinished makes its repeats wait, then 409.
    await services.formSubmissions.finish(key, typeof location === 'string' ? location : undefined).catch((err: unknown) => request.log.warn({ err }, 'recording a console form submission failed'));
    return payload;
  });
}

/** The form's values, whatever their order, without its CSRF and page tokens. */
function valuesDigest(body: Record<string, unknown>): string {
  const values = Object.entries(body)
    .filter(([name]) => name !== '_csrf' && name !== SUBMISSION_FIELD)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(values)).digest('hex');
}
