import { errorResponses } from '../schemas/common.js';
import { EstimateWithdrawalFeeBody, WithdrawalFeeEstimateSchema } from '../schemas/crypto.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import type { RouteModule } from './types.js';

export const cryptoRoutes: RouteModule = (app, { withdrawalFees }) => {
  app.post(
    '/crypto/estimate-withdrawal-fee',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags: ['Cross-Currency Transfers'],
        summary: 'Estimate a crypto withdrawal fee',
        description:
          "The sandbox's fixed network fee per network and currency, no application fee. currency must be the account's; a network that does not carry it, or an amount not above the fee: 400. " +
          "Unknown or another platform's account: 404 REFERENCE_NOT_FOUND. Nothing is created.",
        body: EstimateWithdrawalFeeBody,
        response: { 200: WithdrawalFeeEstimateSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => withdrawalFees.estimate(request.principal.platformId, request.body, requestUnitOfWork(request)),
  );
};
