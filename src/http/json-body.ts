import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

const CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** The charset a Content-Type declares, lower-cased; undefined when it declares none. */
export function declaredCharset(contentType: string): string | undefined {
  const m = CHARSET.exec(contentType);
  return m ? (m[1] ?? m[2] ?? '').toLowerCase() : undefined;
}

/**
 * JSON bodies are UTF-8 (RFC 8259): one declared in another charset (utf-16, latin1) is a 415,
 * not bytes read as UTF-8 into something else. Fastify's own parser does the rest (empty body,
 * bad JSON, prototype poisoning).
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const contentType = request.headers['content-type'] ?? '';
    const charset = declaredCharset(contentType);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${JSON.stringify(contentType)} declares charset ${JSON.stringify(charset)}; JSON bodies must be UTF-8`), undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}
