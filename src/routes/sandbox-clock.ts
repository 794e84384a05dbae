import { AdvanceClockBody, ClockSchema } from '../schemas/sandbox-clock.js';
import { errorResponses, extension } from '../schemas/common.js';
import type { RouteModule } from './types.js';

const tags = ['Sandbox'];

export const sandboxClockRoutes: RouteModule = (app, { sandboxClock }) => {
  app.get(
    '/sandbox/clock',
    {
      config: { sandboxOnly: true, permission: 'VIEW' },
      schema: {
        tags,
        summary: "Read the platform's sandbox clock",
        description: 'Every time this service writes for the platform (createdAt, updatedAt, webhook timestamps, authorization and expiry times, delayed outcomes) reads this clock. Production: 404, as for an unknown path.',
        ...extension('The operation: a sandbox clock per platform'),
        response: { 200: ClockSchema, ...errorResponses(404) },
      },
    },
    async (request) => sandboxClock.read(request.principal.platformId),
  );

  app.post(
    '/sandbox/clock/advance',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT' },
      schema: {
        tags,
        summary: "Advance the platform's sandbox clock",
        description:
          'Moves the clock forward by `seconds` or to `to` (exactly one; zero, backwards or more than two years past real time is a 400 naming the field) and ' +
          'answers once everything that fell due by the new time has happened: delayed outcomes landed, fully open authorizations older than the ' +
          'authorization time-to-live expired (CARD_TRANSACTION.EXPIRED), their webhooks queued. Advances of one platform run one at a time; ' +
          'other platforms keep their own time. Webhook delivery retries and job leases stay on real time. Production: 404, as for an unknown path.',
        ...extension('The operation: a sandbox clock per platform'),
        body: AdvanceClockBody,
        response: { 200: ClockSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => sandboxClock.advance(request.principal.platformId, request.body as { seconds?: number; to?: string }, request.log),
  );
};
