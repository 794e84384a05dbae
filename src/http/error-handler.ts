import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import {
  CardClosedError,
  ExternalAccountVerificationRequiredError,
  TransactionStateError,
  ConflictError,
  DeletedError,
  DomainError,
  type FieldError,
  IneligibleFundingSourceError,
  InvalidBankAccountError,
  InvalidStateError,
  KycNotApprovedError,
  NotFoundError,
  PaymentRefusedError,
  type NotFoundResource,
  NotImplementedError,
  RevokedCredentialsError,
  ValidationError,
  WebhookDeliveryError,
  WebhookEndpointNotSetError,
} from '../domain/shared/errors.js';
import type { TokenService } from '../domain/platform/tokens.js';
import { ApiError, routeNotFound } from './api-error.js';
import { unauthorized } from './auth.js';
import type { CodeOf } from './error-catalogue.js';
import { fieldErrorsFromAjv } from './validation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's reference checks (ids that must name a resource of the platform), run on a request that failed validation too (through requestUnitOfWork under an Idempotency-Key). */
    references?: (request: FastifyRequest) => Promise<FieldError[]>;
  }
}

/** Maps every failure (ours, Fastify's, the validator's, a domain error) to the one Error object. */
export function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomain(err);
  const e = err as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(e.validation)) {
    const errors = [...fieldErrorsFromAjv(e.validation as never, e.validationContext ?? 'body'), ...laterPartErrors(request, e.validationContext)];
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
  if (clientAborted(err, request)) return new ApiError('INVALID_REQUEST_FORMAT', 'The client closed the connection before the request arrived whole');
  if (err instanceof SyntaxError && e.statusCode === 400) {
    return new ApiError('INVALID_REQUEST_FORMAT', 'The request body is not valid JSON');
  }
  // A plugin's refusal of a path (the docs' static files: traversal, a NUL) is a path that does not exist.
  if (e.statusCode === 403 || e.statusCode === 404) return routeNotFound(request.method, request.url);
  // Whatever else the framework, a plugin or the body stream marks as the client's fault.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('INVALID_REQUEST_FORMAT', 'The request could not be read');
  return new ApiError('INTERNAL_ERROR', `An internal error occurred; quote reference ${request.id} when reporting it`);
}

/** Each resource's 404 code: its own where the Grid document's Error404 enum has one, else REFERENCE_NOT_FOUND. */
const NOT_FOUND_CODES: Record<NotFoundResource, CodeOf<404>> = {
  Customer: 'USER_NOT_FOUND',
  Transaction: 'TRANSACTION_NOT_FOUND',
  CardTransaction: 'TRANSACTION_NOT_FOUND',
  Token: 'TOKEN_NOT_FOUND',
  BeneficialOwner: 'REFERENCE_NOT_FOUND',
  InternalAccount: 'REFERENCE_NOT_FOUND',
  Card: 'REFERENCE_NOT_FOUND',
  WebhookEvent: 'REFERENCE_NOT_FOUND',
  Verification: 'REFERENCE_NOT_FOUND',
  RequestLog: 'REFERENCE_NOT_FOUND',
  ExternalAccount: 'REFERENCE_NOT_FOUND',
  Document: 'REFERENCE_NOT_FOUND',
  BulkImportJob: 'BULK_UPLOAD_JOB_NOT_FOUND',
  Quote: 'QUOTE_NOT_FOUND',
  Invitation: 'INVITATION_NOT_FOUND',
  UmaAddress: 'UMA_NOT_FOUND',
};

/** The client went away while its request was being read (the body stream was aborted or reset). */
export function clientAborted(err: unknown, request: FastifyRequest): boolean {
  // Fastify marks every error of the body stream 400; a database's ECONNRESET has no such mark.
  const e = err as { code?: unknown; statusCode?: unknown } | null;
  if (e?.statusCode !== 400) return false;
  return request.raw.aborted || e.code === 'ECONNRESET' || e.code === 'ECONNABORTED' || e.code === 'ERR_STREAM_PREMATURE_CLOSE';
}

type RequestPart = 'params' | 'body' | 'querystring';

/** Fastify validates params, then body, then querystring, and stops at the first that fails. */
const PARTS_AFTER: Record<string, RequestPart[]> = { params: ['body', 'querystring'], body: ['querystring'] };

/** The field errors of the parts Fastify did not validate after one failed: one 400 lists them all. */
function laterPartErrors(request: FastifyRequest, failed: string | undefined): FieldError[] {
  const out: FieldError[] = [];
  for (const part of PARTS_AFTER[failed ?? ''] ?? []) {
    const validate = request.getValidationFunction(part);
    if (typeof validate !== 'function') continue;
    const data = part === 'body' ? request.body : part === 'params' ? request.params : request.query;
    const result = validate(data) as unknown as { error?: { validation?: unknown[] } };
    if (Array.isArray(result?.error?.validation)) out.push(...fieldErrorsFromAjv(result.error.validation as never, part));
  }
  return out;
}

/**
 * A request that failed validation still gets its route's reference checks (an unknown customerId,
 * cardholderId or cardId) on the ids that are well formed, so one 400 lists every invalid field.
 * A check that fails for another reason leaves the answer as it was.
 */
async function withReferenceErrors(apiError: ApiError, request: FastifyRequest): Promise<ApiError> {
  const references = request.routeOptions.config?.references;
  const errors = (apiError.details?.errors ?? []) as FieldError[];
  if (!references || request.principal === undefined || apiError.code !== 'INVALID_INPUT') return apiError;
  let found: FieldError[];
  try {
    found = await references(request);
  } catch {
    return apiError;
  }
  const reported = new Set(errors.map((e) => e.field));
  const all = [...errors, ...found.filter((e) => !reported.has(e.field))];
  if (all.length === errors.length) return apiError;
  return new ApiError('INVALID_INPUT', `${all.length} fields are invalid`, { errors: all });
}

function fromDomain(err: DomainError): ApiError {
  if (err instanceof NotFoundError) return new ApiError(NOT_FOUND_CODES[err.resource], err.message);
  if (err instanceof ConflictError) return new ApiError(err.clash === 'umaAddress' ? 'UMA_ADDRESS_EXISTS' : 'CONFLICT', err.message);
  if (err instanceof DeletedError) return new ApiError('CUSTOMER_DELETED', err.message);
  if (err instanceof CardClosedError) return new ApiError(err.alreadyClosed ? 'CARD_ALREADY_CLOSED' : 'CARD_NOT_MUTABLE', err.message, { currentStatus: err.currentStatus });
  if (err instanceof TransactionStateError) return new ApiError(err.code, err.message, { currentStatus: err.currentStatus });
  if (err instanceof ExternalAccountVerificationRequiredError) return new ApiError('EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED', err.message, { errors: err.errors });
  if (err instanceof InvalidStateError) return new ApiError('INVALID_STATE_TRANSITION', err.message, { currentStatus: err.currentStatus });
  if (err instanceof ValidationError) return new ApiError('INVALID_INPUT', err.message, { errors: err.errors });
  if (err instanceof InvalidBankAccountError) return new ApiError('INVALID_BANK_ACCOUNT', err.message, { errors: err.errors });
  if (err instanceof IneligibleFundingSourceError) return new ApiError('FUNDING_SOURCE_INELIGIBLE', err.message, { errors: err.errors });
  if (err instanceof KycNotApprovedError) return new ApiError('CARDHOLDER_KYC_NOT_APPROVED', err.message, { customerId: err.customerId, kycStatus: err.status });
  if (err instanceof WebhookEndpointNotSetError) return new ApiError('WEBHOOK_ENDPOINT_NOT_SET', err.message);
  if (err instanceof WebhookDeliveryError) return new ApiError('WEBHOOK_DELIVERY_ERROR', err.message, err.details);
  if (err instanceof NotImplementedError) return new ApiError('NOT_IMPLEMENTED', err.message);
  if (err instanceof PaymentRefusedError) return new ApiError(err.code, err.message, err.errors.length > 0 ? { errors: err.errors } : undefined);
  if (err instanceof RevokedCredentialsError) return unauthorized();
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
  writeErrorAndClose(socket, new ApiError('INVALID_REQUEST_FORMAT', why));
}

/** The Error object written straight to a socket no request object owns, which is then closed. */
export function writeErrorAndClose(socket: Duplex, apiError: ApiError): void {
  const body = JSON.stringify(apiError.toBody());
  if (socket.writable) {
    const head = `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${randomUUID()}\r\nconnection: close`;
    socket.write(`${head}\r\n\r\n${body}`);
  }
  socket.destroy();
}

/**
 * What Node's HTTP server answers by itself, before any request reaches Fastify, answered with the
 * Error object instead: a CONNECT (this is no proxy; Node would close the socket unanswered) and an
 * Expect other than 100-continue (Node would send an empty 417; RFC 9110 lets a server ignore it, so
 * the request is served as if it had none).
 */
export function answerRuntimeRefusals(server: Server): void {
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    writeErrorAndClose(socket, new ApiError('INVALID_REQUEST_FORMAT', 'CONNECT is not served: this is not a proxy'));
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
}

export function registerErrorHandling(app: FastifyInstance, tokens: TokenService): void {
  // A second router that only knows which paths exist, to tell 405 from 404.
  const known = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    for (const m of [route.method].flat()) {
      if (METHODS.includes(m as HTTPMethod)) known.on(m as HTTPMethod, route.url, () => {}, { sandboxOnly: route.config?.sandboxOnly === true });
    }
  });

  app.setErrorHandler(async (err, request, reply) => {
    if (err instanceof RevokedCredentialsError) tokens.forget(err.tokenId);
    // A principal remembered from an earlier request (Principal.unconfirmed) gets no answer but a 401 once its token is revoked.
    const live = err instanceof RevokedCredentialsError ? false : request.principal?.unconfirmed ? await tokens.isLive(request.principal.tokenId).catch(() => undefined) : true;
    if (live === false) return sendError(reply, unauthorized());
    if (live === undefined) {
      request.log.error({ err, reqId: request.id }, 'request failed, and its token could not be confirmed');
      return sendError(reply, new ApiError('INTERNAL_ERROR', `An internal error occurred; quote reference ${request.id} when reporting it`));
    }
    let apiError = toApiError(err, request);
    if (Array.isArray((err as { validation?: unknown }).validation)) apiError = await withReferenceErrors(apiError, request);
    if (apiError.status === 500) request.log.error({ err, reqId: request.id }, 'request failed');
    // Not the service's failure: nobody is left to read the answer.
    else if (clientAborted(err, request)) request.log.info({ reqId: request.id, reason: (err as Error).message }, 'client aborted the request');
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
