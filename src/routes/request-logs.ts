import { errorResponses, extension, IdParamSchema, pageSchema } from '../schemas/common.js';
import { ListRequestLogsQuery, RequestLogSchema } from '../schemas/request-logs.js';
import type { RouteModule } from './types.js';

const tags = ['Request log'];
const requestLog = extension('The operation: the request log');

export const requestLogRoutes: RouteModule = (app, { requestLogs }) => {
  app.get(
    '/request-logs',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        ...requestLog,
        summary: 'List logged requests',
        description: "The platform environment's requests, newest first, with their redacted bodies. Reads of the request log are not logged.",
        querystring: ListRequestLogsQuery,
        response: { 200: pageSchema(RequestLogSchema, 'A page of logged requests'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      return requestLogs.list(request.principal.platformId, limit ?? 20, cursor, filter);
    },
  );

  app.get(
    '/request-logs/:id',
    {
      config: { permission: 'VIEW' },
      schema: { tags, ...requestLog, summary: 'Get a logged request by its X-Request-Id', params: IdParamSchema, response: { 200: RequestLogSchema, ...errorResponses(400, 404) } },
    },
    async (request) => requestLogs.get(request.principal.platformId, request.params.id),
  );
};
