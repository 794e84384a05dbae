import { requestUnitOfWork } from '../http/idempotency.js';
import { errorResponses } from '../schemas/common.js';
import { OutgoingTransactionSchema, IncomingTransactionSchema, TRANSFER_IN_DESCRIPTION, TRANSFER_OUT_DESCRIPTION, TransferInBody, TransferOutBody } from '../schemas/transfers.js';
import type { RouteModule } from './types.js';

const tags = ['Same-Currency Transfers'];

export const transferRoutes: RouteModule = (app, { transfers }) => {
  app.post(
    '/transfer-in',
    {
      config: { permission: 'TRANSACT' },
      schema: { tags, summary: 'Create a transfer-in request', description: TRANSFER_IN_DESCRIPTION, body: TransferInBody, response: { 201: IncomingTransactionSchema, ...errorResponses(400, 404, 409, 415) } },
    },
    async (request, reply) => {
      const { source, destination, amount } = request.body;
      const txn = await transfers.transferIn(
        request.principal.platformId,
        request.principal.environment,
        { internalAccountId: destination.accountId, externalAccountId: source.accountId, amount },
        requestUnitOfWork(request),
      );
      return reply.code(201).send(txn as never);
    },
  );

  app.post(
    '/transfer-out',
    {
      config: { permission: 'TRANSACT' },
      schema: { tags, summary: 'Create a transfer-out request', description: TRANSFER_OUT_DESCRIPTION, body: TransferOutBody, response: { 201: OutgoingTransactionSchema, ...errorResponses(400, 404, 409, 415) } },
    },
    async (request, reply) => {
      const { source, destination, amount, remittanceInformation, purposeOfPayment } = request.body;
      const txn = await transfers.transferOut(
        request.principal.platformId,
        request.principal.environment,
        { internalAccountId: source.accountId, externalAccountId: destination.accountId, paymentRail: destination.paymentRail, amount, remittanceInformation, purposeOfPayment },
        requestUnitOfWork(request),
      );
      return reply.code(201).send(txn as never);
    },
  );
};
