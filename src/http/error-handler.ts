import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import {
  ConflictError,
  DeletedError,
  DomainError,
  InvalidStateError,
  NotFoundError,
  NotImplementedError,
  ValidationError,
  WebhookDeliveryError,
  WebhookEndpointNotSetError,
} from '../domain/errors.js';
import { ApiError, routeNotFound } from './api-error.js';
import type { ErrorCode } from './error-catalogue.js';
import { fieldErrorsFromAjv } from './validation.js';

/** Maps every failure (ours, Fastify's, the validator's, a domain error) to the one Error object. */
export function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomain(err);
  const e = err as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(e.validation)) {
    const errors = fieldErrorsFromAjv(e.validation as never, e.validationContext ?? 'body');
    const summary = errors.length === 1 ? `Invalid ${errors[0]!.field}: ${errors[0]!.message}` : `${errors.length} fields are invalid`;
    return new ApiError('INVALID_INPUT', summary, { errors });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')} is not supported; send application/json`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'The request body exceeds the 1 MiB limit');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('INVALID_REQUEST_FORMAT', 'The Content-Type is application/json but the body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('INVALID_REQUEST_FORMAT', 'The Content-Length header does not match the body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_REQUEST_FORMAT', 'The request body is not valid JSON');
    case 'FST_ERR_BAD_URL':
      return new ApiError('INVALID_REQUEST_FORMAT', 'The URL is not valid (bad percent-encoding)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('INVALID_REQUEST_FORMAT', 'A path parameter is too long');
  }
  if (err instanceof SyntaxError && e.statusCode === 400) {
    return new ApiError('INVALID_REQUEST_FORMAT', 'The request body is not valid JSON');
  }
  if (e.statusCode === 400 && typeof e.code === 'string' && e.code.startsWith('FST_ERR')) {
    return new ApiError('INVALID_REQUEST_FORMAT', 'The request could not be read');
  }
  return new ApiError('INTERNAL_ERROR', `An internal error occurred; quote reference ${request.id} when reporting it`);
}

/** The interface's 404 codes that name the missing thing; other resources answer NOT_FOUND. */
const NOT_FOUND_CODES: Record<string, ErrorCode> = { Customer: 'USER_NOT_FOUND', Transaction: 'TRANSACTION_NOT_FOUND', Token: 'TOKEN_NOT_FOUND' };

function fromDomain(err: DomainError): ApiError {
  if (err instanceof NotFoundError) return new ApiError(NOT_FOUND_CODES[err.resource] ?? 'NOT_FOUND', err.message);
  if (err instanceof ConflictError) return new ApiError(err.clash === 'umaAddress' ? 'UMA_ADDRESS_EXISTS' : 'CONFLICT', err.message);
  if (err instanceof DeletedError) return new ApiError('CUSTOMER_DELETED', err.message);
  if (err instanceof InvalidStateError) return new ApiError('INVALID_STATE_TRANSITION', err.message, { currentStatus: err.currentStatus });
  if (err instanceof ValidationError) return new ApiError('INVALID_INPUT', err.message, { errors: err.errors });
  if (err instanceof WebhookEndpointNotSetError) return new ApiError('WEBHOOK_ENDPOINT_NOT_SET', err.message);
  if (err instanceof WebhookDeliveryError) return new ApiError('WEBHOOK_DELIVERY_ERROR', err.message, err.details);
  if (err instanceof NotImplementedError) return new ApiError('NOT_IMPLEMENTED', err.message);
  return new ApiError('INTERNAL_ERROR', err.message);
}

export function sendError(reply: FastifyReply, apiError: ApiError): FastifyReply {
  if (apiError.headers) reply.headers(apiError.headers);
  return reply.code(apiError.status).type('application/json; charset=utf-8').send(apiError.toBody());
}

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Fastify's `frameworkErrors`: URL problems found before routing (bad percent-encoding, an overlong id) get the Error object too. */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // These answers skip the onRequest hook that sets it on every other response.
  reply.header('x-request-id', request.id);
  return sendError(reply, toApiError(err, request));
}

/**
 * Fastify's `clientErrorHandler`: what the HTTP parser refuses before a request exists (a malformed
 * request, headers over 16 KiB, a request not received in time) gets the Error object too.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const why =
    err.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers exceed 16 KiB' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'The request was not received in time' : 'The request is not valid HTTP';
  const body = JSON.stringify(new ApiError('INVALID_REQUEST_FORMAT', why).toBody());
  if (socket.writable) {
    const head = `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nconnection: close`;
    socket.write(`${head}\r\n\r\n${body}`);
  }
  socket.destroy();
}

export function registerErrorHandling(app: FastifyInstance): void {
  // A second router that only knows which paths exist, to tell 405 from 404.
  const known = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    for (const m of [route.method].flat()) {
      if (METHODS.includes(m as HTTPMethod)) known.on(m as HTTPMethod, route.url, () => {}, { sandboxOnly: route.config?.sandboxOnly === true });
    }
  });

  app.setErrorHandler((err, request, reply) => {
    const apiError = toApiError(err, request);
    if (apiError.status === 500) request.log.error({ err, reqId: request.id }, 'request failed');
    return sendError(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // To a production token the sandbox paths do not exist: no 405 for them either.
    const production = request.principal?.environment === 'production';
    const allowed = METHODS.filter((m) => {
      if (m === request.method) return false;
      const found = known.find(m, path);
      return found !== null && !(production && (found.store as { sandboxOnly?: boolean } | undefined)?.sandboxOnly);
    });
    if (allowed.length > 0 && request.method !== 'HEAD') {
      return sendError(
        reply,
        new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, undefined, {
          allow: allowed.join(', '),
        }),
      );
    }
    return sendError(reply, routeNotFound(request.method, request.url));
  });
}
