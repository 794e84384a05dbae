import type { TSchema } from 'typebox';
import type { SimulationName } from '../domain/cards/card-transactions.js';
import { errorResponses, extension, IdParamSchema } from '../schemas/common.js';
import { AmountBody, AuthorizationBody, AuthorizationResponse, SimulationRequest, SimulationResponse } from '../schemas/sandbox-cards.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

interface Simulator {
  name: SimulationName;
  summary: string;
  description: string;
  body: TSchema;
  /** What of this operation is an extension of this service, if it is one. */
  extension?: string;
}

const REFUSALS =
  ' Validated against the state the transaction will have once every operation already accepted lands, so calls can be chained ' +
  'without waiting. Wrong state: 409 INVALID_STATE_TRANSITION naming that status; nothing is queued. Unknown or foreign card: 404 ' +
  'REFERENCE_NOT_FOUND; a transaction not on this card: 404 TRANSACTION_NOT_FOUND. Production: 404, as for an unknown path.';

const SIMULATORS: Simulator[] = [
  { name: 'clearing', summary: 'Simulate a card clearing', body: AmountBody('Amount to settle, 0 or more; 0 expires a fully open authorization, an amount above the open amount settles it, the extra included', 0), description: 'Settles part (PARTIALLY_SETTLED) or all (SETTLED) of an AUTHORIZED or PARTIALLY_SETTLED transaction; an amount at or above the open amount makes it SETTLED (over-authorization such as a tip). Amount 0 expires a fully open (AUTHORIZED, nothing settled) transaction exactly as authorization_expiry (EXPIRED); on a PARTIALLY_SETTLED one it is a 409.' },
  { name: 'return', summary: 'Simulate a card return', body: AmountBody('Amount to refund; at most the net settled amount'), description: 'Refunds settled funds of a SETTLED or PARTIALLY_SETTLED transaction: a full return makes it REFUNDED, a partial one keeps the status and raises refundedAmount.' },
  { name: 'authorization_expiry', summary: 'Simulate a card authorization expiry', body: SimulationRequest, extension: 'The operation, and the status EXPIRED it leads to (in Grid a clearing of amount 0 expires an authorization)', description: 'The authorization lapses and the held funds are released: the transaction must be fully open (AUTHORIZED, nothing settled) and becomes EXPIRED.' },
  { name: 'return_reversal', summary: 'Simulate a card return reversal', body: SimulationRequest, description: 'Reverses the return that made a REFUNDED transaction REFUNDED: refundedAmount drops by it and the status goes back to what it was before (SETTLED or PARTIALLY_SETTLED).' },
];

const tags = ['Sandbox'];

export const sandboxCardRoutes: RouteModule = (app, { cardSimulations }) => {
  app.post(
    '/sandbox/cards/:id/simulate/authorization',
    {
      config: { sandboxOnly: true, permission: 'TRANSACT', confirmsToken: true },
      schema: {
        tags,
        summary: 'Simulate a card authorization',
        description:
          'Creates a card transaction, decided in the background when it lands: AUTHORIZED (held on the first funding source with the amount ' +
          'available) or DECLINED with declineReason: CARD_PAUSED when the card is not ACTIVE then or the merchant descriptor ends in 003, ' +
          'SPEND_LIMIT_EXCEEDED when the amount is above the card\'s maxSpendPerTransaction, ' +
          'INSUFFICIENT_FUNDS when no funding source has the amount available or the descriptor ends in 002. A declined one holds nothing and ' +
          'sends CARD_TRANSACTION.DECLINED. Descriptor 005: the pull is confirmed after SANDBOX_DELAYED_PULL_MS (pullSummary.pendingCount ' +
          'meanwhile); 006: the pull is reported failed and the transaction becomes EXCEPTION. Accepted whatever the card\'s state. ' +
          'Unknown or foreign card: 404 REFERENCE_NOT_FOUND. Production: 404, as for an unknown path.',
        params: IdParamSchema,
        body: AuthorizationBody,
        response: { 202: AuthorizationResponse, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const { platformId, tokenId } = request.principal;
      const body = request.body;
      const accepted = await cardSimulations.authorize(
        platformId,
        request.params.id,
        { amount: body.amount, currency: body.currency, merchant: body.merchant },
        tokenId,
        requestUnitOfWork(request),
      );
      return reply.code(202).send(accepted);
    },
  );

  for (const sim of SIMULATORS) {
    app.post(
      `/sandbox/cards/:id/simulate/${sim.name}`,
      {
        config: { sandboxOnly: true, permission: 'TRANSACT' },
        schema: {
          tags,
          ...(sim.extension === undefined ? {} : extension(sim.extension)),
          summary: sim.summary,
          description: `${sim.description} Processed in the background; a card transaction webhook is sent when it lands.${REFUSALS}`,
          params: IdParamSchema,
          body: sim.body,
          response: { 202: SimulationResponse, ...errorResponses(400, 404, 409, 415) },
        },
      },
      async (request, reply) => {
        const body = request.body as { cardTransactionId: string; amount?: number };
        const { issuerTransactionToken } = await cardSimulations.simulate(request.principal.platformId, request.params.id, sim.name as Exclude<SimulationName, 'authorization'>, body, requestUnitOfWork(request));
        return reply.code(202).send({ issuerTransactionToken });
      },
    );
  }
};
