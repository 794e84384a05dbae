import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pipeline, Transform, type Readable } from 'node:stream';
import type { FieldError } from '../domain/shared/errors.js';
import { ValidationError } from '../domain/shared/errors.js';
import { ApiError } from './api-error.js';
import { multipartFingerprint } from './idempotency.js';

/** Text fields are short metadata; a longer value is refused rather than silently cut. */
const MAX_FIELD_BYTES = 1024;

/** A file part as the route's consumer gets it: the stream (ended early past the limit) and what the client declared. */
export interface FilePart {
  stream: Readable;
  fileName: string;
  mimeType: string;
}

export interface MultipartSpec<F> {
  /** The name of the one file field. */
  fileField: string;
  /** The largest file accepted, in bytes: the parser drops the bytes past it as they arrive, and the answer is a 413. */
  maxFileBytes: (request: FastifyRequest) => number;
  /** Reads the file part's stream to its end (it must), answering what the handler gets from multipartFile. */
  consume: (request: FastifyRequest, part: FilePart) => Promise<F>;
}

interface ReadForm {
  file?: unknown;
  /** Failures of the form itself (a field given twice, too long, a second file), for the route's one 400. */
  errors: FieldError[];
}

const forms = new WeakMap<FastifyRequest, ReadForm>();

/** Registers the multipart parser on a route scope: only the upload routes accept multipart/form-data. */
export async function registerMultipart(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, { limits: { parts: 40, fields: 30, files: 5, fieldSize: MAX_FIELD_BYTES, headerPairs: 100 } });
}

/** What the consumer answered for the request's file part; undefined when it had none. */
export function multipartFile<F>(request: FastifyRequest): F | undefined {
  return forms.get(request)?.file as F | undefined;
}

/** The 415 for a request that was not multipart/form-data (a JSON body, or none). */
export function multipartRequired(request: FastifyRequest): void {
  if (!forms.has(request)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')} is not supported; send multipart/form-data`);
}

/** The field errors found while reading the form, to report with the schema's in one 400. */
export function multipartErrors(request: FastifyRequest): FieldError[] {
  return forms.get(request)?.errors ?? [];
}

/**
 * A preValidation hook that reads a multipart body part by part, in order: text fields become the
 * body the route's schema validates, the file field becomes its file name there (its content goes
 * to `consume`, streamed), and every part feeds the Idempotency-Key fingerprint. A field given
 * twice or too long is kept for multipartErrors; a file part under another name is a field of the
 * body, so the schema names it.
 */
export function multipartBody<F>(spec: MultipartSpec<F>) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    // Refused by the route (multipartRequired), after the Idempotency-Key claim as any other request's failure.
    if (!request.isMultipart()) return;
    const fingerprint = multipartFingerprint(request);
    const feed = (...pieces: (string | Buffer)[]) => {
      for (const p of pieces) fingerprint?.update(typeof p === 'string' ? `${Buffer.byteLength(p)}:${p}` : p);
    };
    const body: Record<string, string> = {};
    const form: ReadForm = { errors: [] };
    const errors = form.errors;
    forms.set(request, form);
    const maxFileBytes = spec.maxFileBytes(request);
    try {
      for await (const part of request.parts({ limits: { fileSize: maxFileBytes } })) {
        const repeated = Object.hasOwn(body, part.fieldname);
        if (repeated) errors.push({ field: part.fieldname, message: 'is given more than once' });
        if (part.type === 'field') {
          const value = typeof part.value === 'string' ? part.value : String(part.value);
          if (part.valueTruncated) errors.push({ field: part.fieldname, message: `is longer than ${MAX_FIELD_BYTES} bytes` });
          feed('field', part.fieldname, value);
          if (!repeated) body[part.fieldname] = value;
          continue;
        }
        feed('file', part.fieldname, part.filename, part.mimetype);
        if (part.fieldname !== spec.fileField || repeated) {
          for await (const chunk of part.file) feed(chunk as Buffer);
          if (!repeated) body[part.fieldname] = part.filename;
          continue;
        }
        body[part.fieldname] = part.filename;
        const tap = new Transform({
          transform(chunk: Buffer, _encoding, next) {
            fingerprint?.update(chunk);
            next(null, chunk);
          },
        });
        const stream = pipeline(part.file, tap, () => undefined);
        form.file = await spec.consume(request, { stream, fileName: part.filename, mimeType: part.mimetype });
        if (part.file.truncated) throw tooLarge(spec.fileField, maxFileBytes);
      }
    } catch (err) {
      throw translate(err, spec.fileField, maxFileBytes);
    }
    request.body = body;
  };
}

function tooLarge(field: string, max: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The ${field} part exceeds the ${max}-byte limit`, { field, maxBytes: max });
}

/** The parser's refusals as the service's errors: a client's malformed body is a 400, never a 500. */
function translate(err: unknown, field: string, max: number): unknown {
  if (err instanceof ApiError || err instanceof ValidationError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(field, max);
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') return new ApiError('INVALID_REQUEST_FORMAT', 'The multipart body has too many parts');
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status < 500) return new ApiError('INVALID_REQUEST_FORMAT', 'The multipart body could not be read');
  if (err instanceof Error && /multipart|boundary|Unexpected end of form/i.test(err.message)) return new ApiError('INVALID_REQUEST_FORMAT', 'The multipart body could not be read');
  return err;
}

/**
 * A file part's bytes in one buffer, copied once: sized from the request's Content-Length (which
 * bounds the part) up to `max`, grown by doubling only when the length is not given.
 */
export async function readBounded(stream: Readable, contentLength: number | undefined, max: number): Promise<Buffer> {
  let buffer = Buffer.allocUnsafe(Math.min(max, contentLength ?? 64 * 1024));
  let length = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const take = Math.min(chunk.length, max - length);
    if (length + take > buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(max, Math.max(buffer.length * 2, length + take)));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    chunk.copy(buffer, length, 0, take);
    length += take;
  }
  return buffer.subarray(0, length);
}
