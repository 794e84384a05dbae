import { requestUnitOfWork } from '../http/idempotency.js';
import { errorResponses } from '../schemas/common.js';
import { IncomingTransactionSchema, SandboxUmaReceiveBody } from '../schemas/transfers.js';
import type { RouteModule } from './types.js';

export const sandboxUmaRoutes: RouteModule = (app, { umaReceive }) => {
  app.post(
    '/sandbox/uma/receive',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT' },
      schema: {
        tags: ['Sandbox'],
        summary: 'Simulate an incoming UMA payment',
        description:
          "An UMA payment from a sandbox UMA address to a customer of the platform (receiverUmaAddress or customerId): an IncomingTransaction to the customer's internal account in receivingCurrencyCode, " +
          'PENDING (INCOMING_PAYMENT.PENDING), then credited and COMPLETED through the worker. $pending.long.usd completes after six minutes of the platform\'s clock; $fail.compliance.usd fails ' +
          '(COMPLIANCE_REJECTED). When the platform\'s config lists requiredCounterpartyFields for the currency, the payment waits for POST /transactions/{transactionId}/approve or /reject. ' +
          'Malformed addresses or no receiver: 400; a sender that is not a sandbox address, or an unknown receiver: 404; no internal account in the currency: 400 INVALID_CURRENCY. Production: 404.',
        body: SandboxUmaReceiveBody,
        response: { 200: IncomingTransactionSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => (await umaReceive.receive(request.principal.platformId, request.body, requestUnitOfWork(request))) as never,
  );
};
