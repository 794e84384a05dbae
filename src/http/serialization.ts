import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

const defaultFactory = SerializerSelector();

/**
 * Fastify's own response serializers (fast-json-stringify), each built on its route's first
 * answer with that status instead of when the route is registered: building them all was 0.2 s
 * of every server start and of every app a test builds (fast-json-stringify keeps nothing between
 * apps), for responses most processes never send.
 */
export const lazySerializers: typeof defaultFactory = (externalSchemas, options) => {
  const compile = defaultFactory(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => (serialize ??= compile(route))(doc);
  };
};
