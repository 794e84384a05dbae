import { errorResponses, extension } from '../schemas/common.js';
import { CustomerSchema } from '../schemas/customers.js';
import { CustomerIdParamSchema, SetKycStatusBody } from '../schemas/sandbox-customers.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

export const sandboxCustomerRoutes: RouteModule = (app, { kyc }) => {
  app.post(
    '/sandbox/customers/:customerId/kyc',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT' },
      schema: {
        tags: ['Sandbox'],
        ...extension('The operation: Grid decides KYC/KYB itself; this sandbox lets the platform decide it'),
        summary: "Set a customer's KYC/KYB status",
        description:
          'Sets the kycStatus of an INDIVIDUAL customer, or the kybStatus of a BUSINESS one, to any status, and answers the customer. ' +
          'PENDING, APPROVED and REJECTED send CUSTOMER.KYC_<status> (CUSTOMER.KYB_<status> for a business), on every call; UNVERIFIED and HOLD send none (the interface defines no webhook for them). ' +
          'Owners and verifications are left as they are. Unknown or foreign customer: 404 USER_NOT_FOUND; deleted: 410 CUSTOMER_DELETED. ' +
          'Production: 404, as for an unknown path.',
        params: CustomerIdParamSchema,
        body: SetKycStatusBody,
        response: { 200: CustomerSchema, ...errorResponses(400, 404, 410, 415) },
      },
    },
    async (request) => kyc.setStatus(request.principal.platformId, request.params.customerId, request.body.status, requestUnitOfWork(request)),
  );
};
