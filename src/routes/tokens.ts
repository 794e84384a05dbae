import { Type } from 'typebox';
import { highestPermission, permissionRank, type Environment } from '../domain/platform/tokens.js';
import { forbidden } from '../http/auth.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { ApiTokenSchema, CreatedApiTokenSchema, CreateTokenBody, ListTokensQuery } from '../schemas/tokens.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

const tags = ['API Tokens'];

export const tokenRoutes: RouteModule = (app, { tokens }) => {
  app.post(
    '/tokens',
    {
      config: { permission: 'MANAGE' },
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
      // A token never grants more than it has (MANAGE is needed to get here; the rule holds whatever is added above it).
      const asked = highestPermission(request.body.permissions);
      if (permissionRank(asked) > permissionRank(request.principal.permission)) throw forbidden(asked);
      const created = await tokens.create(request.principal.platformId, { ...request.body, environment }, requestUnitOfWork(request));
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/tokens',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'List API tokens',
        description: 'Oldest first, keyset-paginated; a cursor continues only the filters it was issued for (else 400 on cursor).',
        querystring: ListTokensQuery,
        response: { 200: pageSchema(ApiTokenSchema, 'A page of API tokens'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      return tokens.list(request.principal.platformId, limit ?? 20, cursor, filters);
    },
  );

  app.get(
    '/tokens/:id',
    {
      config: { permission: 'VIEW' },
      schema: { tags, summary: 'Get an API token', params: IdParamSchema, response: { 200: ApiTokenSchema, ...errorResponses(400, 404) } },
    },
    async (request) => tokens.get(request.principal.platformId, request.params.id),
  );

  app.delete(
    '/tokens/:id',
    {
      config: { permission: 'MANAGE' },
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
