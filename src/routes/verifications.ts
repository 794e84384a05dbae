import { requestUnitOfWork } from '../http/idempotency.js';
import { errorResponses, pageSchema } from '../schemas/common.js';
import { CreateVerificationBody, ListVerificationsQuery, VerificationIdParamSchema, VerificationSchema } from '../schemas/verifications.js';
import type { RouteModule } from './types.js';

const tags = ['KYC/KYB Verifications'];

export const verificationRoutes: RouteModule = (app, { verifications }) => {
  app.post(
    '/verifications',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Submit a customer for verification',
        description:
          'Checks the customer\'s data and documents as production does and answers the verification: RESOLVE_ERRORS lists every missing field and document in errors; fix them ' +
          '(PATCH /customers/{id}, PATCH /beneficial-owners/{id}, POST /documents) and submit again. In the sandbox the outcome follows the magic suffixes of fullName ' +
          '(individuals) and businessInfo.registrationNumber (businesses); see docs/customers-and-onboarding.md. Sends VERIFICATION.<status>, and CUSTOMER.KYC_*/KYB_* when the ' +
          "customer's status changes. A customer already APPROVED or REJECTED: 400 on customerId. Unknown or foreign customer: 404 USER_NOT_FOUND; deleted: 410 CUSTOMER_DELETED.",
        body: CreateVerificationBody,
        response: { 200: VerificationSchema, ...errorResponses(400, 404, 410, 415) },
      },
    },
    async (request) => verifications.create(request.principal.platformId, request.principal.environment, request.body.customerId, requestUnitOfWork(request)),
  );

  app.get(
    '/verifications',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'List verifications',
        description: 'Oldest first (ties by id), filtered by customerId and verificationStatus. A cursor is bound to the filters it was issued for.',
        querystring: ListVerificationsQuery,
        response: { 200: pageSchema(VerificationSchema, 'A page of verifications, oldest first'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      return verifications.list(request.principal.platformId, limit ?? 20, cursor, filter);
    },
  );

  app.get(
    '/verifications/:verificationId',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'Get a verification',
        description: 'Unknown or of another platform: 404 REFERENCE_NOT_FOUND.',
        params: VerificationIdParamSchema,
        response: { 200: VerificationSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => verifications.get(request.principal.platformId, request.params.verificationId),
  );
};
