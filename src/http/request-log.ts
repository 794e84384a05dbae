import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CapturedRequest, RequestLog } from '../domain/request-logs/request-log.js';
import { BASE_PATH } from './openapi.js';

/** Reading the log is not itself logged. */
const LOG_PATH = `${BASE_PATH}/request-logs`;

const isJson = (contentType: unknown) => typeof contentType === 'string' && /^application\/([\w.+-]*\+)?json\b/i.test(contentType);

/** What is kept of a request body: the parsed JSON, or for anything else (multipart documents) only its type and size. */
function requestBody(request: FastifyRequest): unknown {
  const type = request.headers['content-type'];
  if (request.body !== undefined && isJson(type)) return request.body;
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
 * Hands every authenticated request (but the log's own reads) to the request log once answered:
 * the capture costs the request two hooks and a push; redaction and the write happen later, in
 * batches. Unauthenticated requests are not logged: they belong to no platform.
 */
export function registerRequestLog(app: FastifyInstance, log: RequestLog): void {
  if (!log.enabled) return;
  const answers = new WeakMap<FastifyRequest, Pick<CapturedRequest, 'responseText' | 'responseSummary'>>();
  const logged = (request: FastifyRequest) => request.principal !== undefined && !request.url.startsWith(LOG_PATH);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (logged(request)) answers.set(request, responseOf(reply, payload));
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (logged(request)) {
      const { platformId, tokenId } = request.principal;
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
        ...answers.get(request),
      });
    }
    done();
  });
  // Whatever is buffered is written before the store closes.
  app.addHook('onClose', async () => log.flush());
}
