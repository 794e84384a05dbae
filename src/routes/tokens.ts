import { Type } from 'typebox';
import { PERMISSIONS, type Environment } from '../domain/tokens.js';
import { errorResponses, IdParamSchema, pageSchema, PageQuerySchema } from '../http/schemas.js';
import type { RouteModule } from './types.js';

const PermissionSchema = Type.Enum([...PERMISSIONS], {
  description: 'VIEW: read data; TRANSACT: send payments; MANAGE: manage configuration, tokens and customers',
});

const ApiTokenSchema = Type.Object({
  id: Type.String({ examples: ['Token:019542f5-b3e7-7d02-8000-000000000001'] }),
  name: Type.String(),
  permissions: Type.Array(PermissionSchema),
  clientId: Type.String({ description: 'Username for HTTP Basic authentication (the token id is accepted too)' }),
  environment: Type.Enum(['sandbox', 'production']),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const CreatedApiTokenSchema = Type.Object(
  { ...ApiTokenSchema.properties, clientSecret: Type.String({ description: 'Shown only in this response; stored only as a digest' }) },
  { description: 'The new token, with its secret' },
);

const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    permissions: Type.Array(PermissionSchema, { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);

const tags = ['API Tokens'];

export const tokenRoutes: RouteModule = (app, { tokens }) => {
  app.post(
    '/tokens',
    {
      schema: {
        tags,
        summary: 'Create an API token',
        description: 'The new token belongs to the caller\'s platform and environment. The secret is shown once.',
        body: CreateTokenBody,
        response: { 201: CreatedApiTokenSchema, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) => {
      const environment: Environment = request.principal.environment;
      const created = await tokens.create(request.principal.platformId, { ...request.body, environment });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/tokens',
    {
      schema: {
        tags,
        summary: 'List API tokens',
        querystring: Type.Object({ ...PageQuerySchema, name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false }),
        response: { 200: pageSchema(ApiTokenSchema, 'A page of API tokens'), ...errorResponses(400) },
      },
    },
    async (request) => tokens.list(request.principal.platformId, request.query.limit ?? 20, request.query.cursor, request.query.name),
  );

  app.get(
    '/tokens/:id',
    {
      schema: { tags, summary: 'Get an API token', params: IdParamSchema, response: { 200: ApiTokenSchema, ...errorResponses(400, 404) } },
    },
    async (request) => tokens.get(request.principal.platformId, request.params.id),
  );

  app.delete(
    '/tokens/:id',
    {
      schema: {
        tags,
        summary: 'Delete (revoke) an API token',
        description: 'The token stops authenticating at once.',
        params: IdParamSchema,
        response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      await tokens.revoke(request.principal.platformId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
