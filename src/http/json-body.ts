import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

const CHARSET = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** The charset a Content-Type declares, lower-cased; undefined when it declares none. */
export function declaredCharset(contentType: string): string | undefined {
  const m = CHARSET.exec(contentType);
  return m ? (m[1] ?? m[2] ?? '').toLowerCase() : undefined;
}

/**
 * JSON bodies are UTF-8 (RFC 8259) and nest at most MAX_DEPTH levels: one declared in another charset (utf-16, latin1) is a 415,
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
    if (nestingExceeds(body as string, MAX_DEPTH)) {
      done(new ApiError('INVALID_REQUEST_FORMAT', `The JSON body nests objects or arrays deeper than ${MAX_DEPTH} levels`), undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}

/** No request of the interface nests half as deep; a deeper body would only feed recursion (a stack overflow, a 500). */
export const MAX_DEPTH = 32;

/** Whether JSON text opens more than `max` objects or arrays at once (strings skipped), in one pass before parsing. */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
