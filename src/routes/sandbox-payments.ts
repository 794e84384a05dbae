import { requestUnitOfWork } from '../http/idempotency.js';
import { errorResponses } from '../schemas/common.js';
import { IncomingTransactionSchema, OutgoingTransactionSchema, SandboxSendBody, SandboxUmaReceiveBody } from '../schemas/transfers.js';
import type { RouteModule } from './types.js';

/** The sandbox's simulated counterparties: a real-time funded quote paid, an UMA payment received. */
export const sandboxPaymentRoutes: RouteModule = (app, { umaReceive, quotePayments }) => {
  app.post(
    '/sandbox/send',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT' },
      schema: {
        tags: ['Sandbox'],
        summary: "Pay a real-time funded quote's payment instructions",
        description:
          "The funds arrive in the quote's customer's internal account in the sending currency (the platform's own when the quote names no customer) and the quote executes from there as a prefunded " +
          "one (POST /quotes/{quoteId}/execute): answers the quote's OutgoingTransaction, with its webhooks and the destination's sandbox suffix outcome. currencyCode must be the sending currency and " +
          'currencyAmount, when given, the totalSendingAmount: 400. A quote funded from an account: 400. Expired or already executed: 409. Unknown: 404 QUOTE_NOT_FOUND. Production: 404.',
        body: SandboxSendBody,
        response: { 200: OutgoingTransactionSchema, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => (await quotePayments.send(request.principal.platformId, request.principal.environment, request.body, requestUnitOfWork(request))) as never,
  );


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
