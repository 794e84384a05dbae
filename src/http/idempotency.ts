import { createHash, type Hash } from 'node:crypto';
import { pipeline, Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UnitOfWork } from '../store/unit-of-work.js';
import type { IdempotencyKeys, IdempotentAttempt } from './idempotency-keys.js';
import { ApiError } from './api-error.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
const FIELD = 'Idempotency-Key';
/** 1 to 255 printable ASCII characters. */
const KEY_SYNTAX = /^[\x20-\x7e]{1,255}$/;
const METHODS = ['POST', 'PATCH'];

interface KeyedRequest {
  key: string;
  body: Hash;
  attempt?: IdempotentAttempt;
}

/** Per request, only when it carries the header: a request without one costs a header lookup. */
const keyed = new WeakMap<FastifyRequest, KeyedRequest>();

/**
 * Idempotency-Key on every authenticated POST and PATCH. After authentication the key's syntax is
 * checked and the raw body hashed as it is read; once the body is parsed the key is claimed
 * (replay, 400 for another request, 409 while running); the handler's work then joins the claim's
 * unit of work (requestUnitOfWork), and the answer is stored in it before a byte of it is sent.
 */
export function registerIdempotency(app: FastifyInstance, keys: IdempotencyKeys): void {
  app.addHook('onRoute', (route) => {
    if (!takesIdempotencyKey(route)) return;
    // Callback-style hooks: a request without the header costs a lookup per hook, no promise.
    route.preParsing = [...hooks(route.preParsing), hashBody as never];
    route.preValidation = [...hooks(route.preValidation), claimHook(keys) as never];
    route.onSend = [...hooks(route.onSend), storeAnswerHook as never];
    route.onResponse = [...hooks(route.onResponse), abandonUnanswered as never];
  });
}

/**
 * The unit of work of a request sent with an Idempotency-Key, once its key is claimed (undefined
 * for any other request). Routes pass it to the service they call (Store.transaction's `within`),
 * so the work commits with the stored answer. Everything done for the request reads and writes
 * through it, the error handler's reference checks included: nothing may wait for a connection the
 * request itself holds (SQLite has one writer; a PostgreSQL pool would drain).
 */
export function requestUnitOfWork(request: FastifyRequest): UnitOfWork | undefined {
  return keyed.get(request)?.attempt?.unitOfWork;
}

/** Requests whose 4xx answer still commits their work (keepWorkOnClientError). */
const keepsWork = new WeakSet<FastifyRequest>();

/** The request's writes commit even though it answers 4xx: a wrong attempt is counted whether or not the request carries a key. */
export function keepWorkOnClientError(request: FastifyRequest): void {
  keepsWork.add(request);
}

/** Every authenticated POST and PATCH. */
export function takesIdempotencyKey(route: { method: string | string[]; config?: { public?: boolean } }): boolean {
  return !route.config?.public && [route.method].flat().some((m) => METHODS.includes(m));
}

function hooks<T>(h: T | T[] | undefined): T[] {
  return h === undefined ? [] : Array.isArray(h) ? h : [h];
}

type Done = (err?: Error | null, value?: unknown) => void;

function keyError(message: string): ApiError {
  return new ApiError('INVALID_INPUT', `Invalid ${FIELD}: ${message}`, { errors: [{ field: FIELD, message }] });
}

/** preParsing: after authentication, check the key and hash the raw body as the parser reads it. */
function hashBody(request: FastifyRequest, _reply: FastifyReply, payload: NodeJS.ReadableStream, done: Done): void {
  const key = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (key === undefined) return done(null, payload);
  if (typeof key !== 'string' || !KEY_SYNTAX.test(key)) return done(keyError('must be 1 to 255 printable ASCII characters'));
  const body = createHash('sha256');
  keyed.set(request, { key, body });
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      body.update(chunk);
      next(null, chunk);
    },
  });
  // pipeline passes a failure of the request stream (an abort) on to the body parser.
  done(null, pipeline(payload, tap, () => undefined));
}

/** preValidation: the body is read; replay, refuse, or start the request under its key. */
function claimHook(keys: IdempotencyKeys) {
  return (request: FastifyRequest, reply: FastifyReply, done: Done): void => {
    const state = keyed.get(request);
    if (!state) return done();
    claim(keys, request, reply, state).then((replayed) => replayed || done(), done);
  };
}

/** True when it answered with the replay. */
async function claim(keys: IdempotencyKeys, request: FastifyRequest, reply: FastifyReply, state: KeyedRequest): Promise<boolean> {
  const fingerprint = { method: request.method, path: request.url, bodySha256: state.body.digest('hex') };
  const claimed = await keys.claim(request.principal.tokenId, state.key, fingerprint);
  switch (claimed.outcome) {
    case 'started':
      state.attempt = claimed.attempt;
      return false;
    case 'replay': {
      const { status, contentType, body } = claimed.answer;
      reply.code(status).header(REPLAYED_HEADER, 'true');
      if (contentType) reply.type(contentType);
      reply.send(body ?? undefined);
      return true;
    }
    case 'mismatch':
      throw keyError('this key was already used with another request (method, path or body); send a new key for a new request');
    case 'in-flight':
      throw new ApiError('CONFLICT', `A request with this ${FIELD} is still in progress; retry it once that one has answered`);
  }
}

/** onSend: the answer is serialized; store it with the work, in one commit, before it is written. */
function storeAnswerHook(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done): void {
  const state = keyed.get(request);
  const attempt = state?.attempt;
  if (!attempt) return done(null, payload);
  state.attempt = undefined;
  storeAnswer(attempt, reply, payload, keepsWork.has(request)).then(() => done(null, payload), done);
}

async function storeAnswer(attempt: IdempotentAttempt, reply: FastifyReply, payload: unknown, keepWork: boolean): Promise<void> {
  const body = payload === null || payload === undefined ? null : typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (body === undefined) {
    await attempt.abandon();
    throw new Error('An answer sent as a stream cannot be kept for Idempotency-Key replays');
  }
  const contentType = reply.getHeader('content-type');
  await attempt.finish({ status: reply.statusCode, contentType: typeof contentType === 'string' ? contentType : null, body }, Date.now(), keepWork);
}

/** onResponse: a request that ended without passing onSend (it should not happen) releases its key and writes nothing. */
function abandonUnanswered(request: FastifyRequest, _reply: FastifyReply, done: Done): void {
  const attempt = keyed.get(request)?.attempt;
  if (!attempt) return done();
  attempt.abandon().then(() => done(), done);
}
