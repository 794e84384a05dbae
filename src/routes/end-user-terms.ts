import { CURRENT_END_USER_TERMS } from '../domain/customers/end-user-terms.js';
import { errorResponses } from '../schemas/common.js';
import { EndUserTermsSchema } from '../schemas/end-user-terms.js';
import type { RouteModule } from './types.js';

export const endUserTermsRoutes: RouteModule = (app) => {
  app.get(
    '/customers/end-user-terms',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags: ['Customers'],
        summary: 'Get the current End User Terms',
        description: 'The current version and hosted URL of the End User Terms. The sandbox serves one fixed version, V1; see docs/customers-and-onboarding.md.',
        response: { 200: EndUserTermsSchema, ...errorResponses() },
      },
    },
    async () => CURRENT_END_USER_TERMS,
  );
};
