import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CapturedRequest, RequestLog } from '../domain/request-logs/request-log.js';
import { BASE_PATH } from './openapi.js';

/** Reading the log is not itself logged. */
const LOG_PATH = `${BASE_PATH}/request-logs`;

const isJson = (contentType: unknown) => typeof contentType === 'string' && /^application\/([\w.+-]*\+)?json\b/i.test(contentType);
const isConsoleForm = (contentType: unknown, body: unknown): body is Record<string, unknown> =>
  typeof contentType === 'string' && /^application\/x-www-form-urlencoded\b/i.test(contentType) && body !== null && typeof body === 'object';

/**
 * Who a request acted for: an API token, or a console session's token for a form it sent (the console
 * acts like an API call and is logged like one; its page views are not).
 */
function actor(request: FastifyRequest): { platformId: string; tokenId: string } | undefined {
  if (request.principal !== undefined) return request.url.startsWith(LOG_PATH) ? undefined : request.principal;
  return request.method === 'POST' ? request.consoleSession : undefined;
}

/** What is kept of a request body: the parsed JSON, or for anything else (multipart documents) only its type and size. */
function requestBody(request: FastifyRequest): unknown {
  const type = request.headers['content-type'];
  if (request.body !== undefined && isJson(type)) return request.body;
  if (isConsoleForm(type, request.body)) {
    // A console form's fields, as the API would log its JSON body; the CSRF token is no business of the log.
    const { _csrf, ...fields } = request.body;
    return fields;
  }
  const length = Number(request.headers['content-length'] ?? 0);
  if (type === undefined && !(length > 0)) return undefined;
  return { omitted: `${String(type ?? 'no content type')} body, ${length} bytes` };
}

function responseOf(reply: FastifyReply, payload: unknown): Pick<CapturedRequest, 'responseText' | 'responseSummary'> {
  const type = reply.getHeader('content-type');
  if (isJson(type) && (typeof payload === 'string' || Buffer.isBuffer(payload))) return { responseText: payload.toString() };
  if (payload === undefined || payload === null || payload === '') return {};
  return { responseSummary: { omitted: `${String(type ?? 'no content type')} body` } };
}

/**
 * Hands every authenticated request (but the log's own reads) and every console form to the request log once answered:
 * the capture costs the request two hooks and a push; redaction and the write happen later, in
 * batches. Unauthenticated requests are not logged: they belong to no platform.
 */
export function registerRequestLog(app: FastifyInstance, log: RequestLog): void {
  if (!log.enabled) return;
  const answers = new WeakMap<FastifyRequest, Pick<CapturedRequest, 'responseText' | 'responseSummary'>>();
  app.addHook('onSend', (request, reply, payload, done) => {
    // Decided once, here: a request the log cannot afford now (log.accepting()) costs nothing more.
    if (log.accepting() && actor(request)) answers.set(request, responseOf(reply, payload));
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const answer = answers.get(request);
    const who = answer && actor(request);
    if (who) {
      const { platformId, tokenId } = who;
      const client = request.headers['x-request-id'];
      log.record({
        id: request.id,
        platformId,
        tokenId,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
        clientRequestId: typeof client === 'string' && client !== request.id ? client.slice(0, 200) : undefined,
        requestBody: requestBody(request),
        ...answer,
      });
    }
    done();
  });
  // Whatever is buffered is written before the store closes.
  app.addHook('onClose', async () => log.flush());
}
