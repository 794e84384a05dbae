import { requestUnitOfWork } from '../http/idempotency.js';
import { errorResponses } from '../schemas/common.js';
import { KycLinkCreateBody, KycLinkResponseSchema, kycPagePath } from '../schemas/kyc-links.js';
import { CustomerIdParamSchema } from '../schemas/sandbox-customers.js';
import type { RouteModule } from './types.js';

export const kycLinkRoutes: RouteModule = (app, { kycLinks, config }) => {
  app.post(
    '/customers/:customerId/kyc-link',
    {
      config: { permission: 'TRANSACT' },
      // The body is optional: no body reads as {}.
      preValidation: async (request) => void (request.body ??= {}),
      schema: {
        tags: ['KYC/KYB Verifications'],
        summary: 'Generate a hosted KYC/KYB link for a customer',
        description:
          'Answers kycUrl, a page this sandbox serves (outside the versioned API, no credentials: the signed URL is the credential) where a person finishes or fails the check, ' +
          'one button per outcome of the sandbox guide; finishing sends the same CUSTOMER.KYC_*/KYB_* webhooks as the API path and redirects (303) to redirectUri when one was given. ' +
          'The link works once, until expiresAt (KYC_LINK_TTL_MS); each call gives a fresh one. Contact channels still PENDING: 409 INVALID_STATE_TRANSITION. ' +
          'Unknown or foreign customer: 404 USER_NOT_FOUND; deleted: 410 CUSTOMER_DELETED; production: 501 (no KYC provider). See docs/customers-and-onboarding.md.',
        params: CustomerIdParamSchema,
        body: KycLinkCreateBody,
        response: { 201: KycLinkResponseSchema, ...errorResponses(400, 404, 409, 410, 415, 501) },
      },
    },
    async (request, reply) => {
      // A production deployment serves no sandbox page: every token there is answered as production.
      const environment = config.serviceEnv === 'production' ? 'production' : request.principal.environment;
      const grant = await kycLinks.create(request.principal.platformId, environment, request.principal.tokenId, request.params.customerId, request.body.redirectUri, requestUnitOfWork(request));
      return reply.code(201).send({ kycUrl: `${request.protocol}://${request.host}${kycPagePath(grant.token)}`, expiresAt: grant.expiresAt, provider: grant.provider });
    },
  );
};
