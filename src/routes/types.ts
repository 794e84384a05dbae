import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Services } from '../services.js';

export type ApiInstance = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A member of a request part that failed validation, so may be anything (null, an array, a string). */
export function memberOf(part: unknown, name: string): unknown {
  return part !== null && typeof part === 'object' && !Array.isArray(part) ? (part as Record<string, unknown>)[name] : undefined;
}

/** A resource's routes: registered on the authenticated, versioned API instance. */
export type RouteModule = (app: ApiInstance, services: Services) => void;
