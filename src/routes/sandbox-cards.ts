import type { TSchema } from 'typebox';
import type { AuthorizationInput } from '../domain/cards/card-simulations.js';
import { SIMULATIONS, type FollowUpSimulation, type OpeningSimulation } from '../domain/cards/card-transactions.js';
import { errorResponses, extension, IdParamSchema } from '../schemas/common.js';
import { AmountBody, AuthorizationBody, AuthorizationResponse, BalanceInquiryBody, SimulationRequest, SimulationResponse } from '../schemas/sandbox-cards.js';
import type { RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';

interface Simulator<Name> {
  name: Name;
  summary: string;
  description: string;
  body: TSchema;
  /** What of this operation is an extension of this service, if it is one. */
  extension?: string;
}

const DECISIONING =
  'AUTHORIZED (held on the first funding source with the amount available) or DECLINED with declineReason: CARD_PAUSED when the card is not ' +
  "ACTIVE then or the merchant descriptor ends in 003, SPEND_LIMIT_EXCEEDED when the amount is above the card's maxSpendPerTransaction, " +
  'INSUFFICIENT_FUNDS when no funding source has the amount available or the descriptor ends in 002. A declined one holds nothing and ' +
  'sends CARD_TRANSACTION.DECLINED. Descriptor 005: the pull is confirmed after SANDBOX_DELAYED_PULL_MS (pullSummary.pendingCount ' +
  'meanwhile); 006: the pull is reported failed and the transaction becomes EXCEPTION.';
const CREDIT_DECISIONING =
  'Direction CREDIT, on the card\'s first funding source: declined (DECLINED, declineReason) only CARD_PAUSED when the card is not ACTIVE then ' +
  'or the descriptor ends in 003, INSUFFICIENT_FUNDS when it ends in 002; no spending limit or balance applies and nothing is pulled (005 and 006 are plain approvals).';
const OPENING =
  ' Processed in the background; CARD_TRANSACTION.<status> is sent when it lands. Accepted whatever the card\'s state. Unknown or foreign card: 404 ' +
  'REFERENCE_NOT_FOUND; currency not the card\'s: 400. Production: 404, as for an unknown path.';

const OPENERS: Simulator<OpeningSimulation>[] = [
  { name: 'authorization', summary: 'Simulate a card authorization', body: AuthorizationBody, description: `Creates a card transaction, decided when it lands: ${DECISIONING}` },
  {
    name: 'financial_authorization',
    summary: 'Simulate a card financial authorization',
    body: AuthorizationBody,
    description: `Single-message: authorized and settled at once. Decided as an authorization (the same declines, 005 and 006); approved, the transaction lands SETTLED, the amount debited from the funding source with no hold left (one pull, one settlement). A suffix-006 one becomes EXCEPTION, the debit kept.`,
  },
  {
    name: 'credit_authorization',
    summary: 'Simulate a card credit authorization',
    body: AuthorizationBody,
    description: `A credit to the card (a merchant's refund pushed as an authorization). ${CREDIT_DECISIONING} Approved, it lands AUTHORIZED, holding nothing; a clearing then credits the funding source (SETTLED), an expiry closes it (EXPIRED) with no money moved.`,
  },
  {
    name: 'credit_authorization_advice',
    summary: 'Simulate a card credit authorization advice',
    body: AuthorizationBody,
    description: `The network's advice of a credit authorization, keyed by the card, not by a transaction: a new transaction, exactly as credit_authorization. ${CREDIT_DECISIONING}`,
  },
  {
    name: 'financial_credit_authorization',
    summary: 'Simulate a card financial credit authorization',
    body: AuthorizationBody,
    description: `Single-message credit: authorized and settled at once. ${CREDIT_DECISIONING} Approved, it lands SETTLED, the amount credited to the funding source (one settlement).`,
  },
  {
    name: 'balance_inquiry',
    summary: 'Simulate a card balance inquiry',
    body: BalanceInquiryBody,
    extension: 'The status an approved balance inquiry lands in (SETTLED, nothing authorized or settled)',
    description:
      'A zero-amount authorization: a new transaction, decided by the card\'s state and the descriptor alone (CARD_PAUSED when the card is not ACTIVE ' +
      'or the descriptor ends in 003, INSUFFICIENT_FUNDS when it ends in 002). Approved, it lands SETTLED with every amount 0; either way it holds, ' +
      'pulls and posts nothing, and every simulator on it is a 409.',
  },
];

const REFUSALS =
  ' Validated against the state the transaction will have once every operation already accepted lands, so calls can be chained ' +
  'without waiting. Wrong state, a CREDIT transaction where a DEBIT one is needed, or a balance inquiry: 409 INVALID_STATE_TRANSITION naming that status; nothing is queued. Unknown or foreign card: 404 ' +
  'REFERENCE_NOT_FOUND; a transaction not on this card: 404 TRANSACTION_NOT_FOUND. Production: 404, as for an unknown path.';

const SIMULATORS: Simulator<FollowUpSimulation>[] = [
  { name: 'clearing', summary: 'Simulate a card clearing', body: AmountBody('Amount to settle, 0 or more; 0 expires a fully open authorization, an amount above the open amount settles it, the extra included', 0), description: 'Settles part (PARTIALLY_SETTLED) or all (SETTLED) of an AUTHORIZED or PARTIALLY_SETTLED transaction; an amount at or above the open amount makes it SETTLED (over-authorization such as a tip). On a CREDIT transaction it credits the funding source. Amount 0 expires a fully open (AUTHORIZED, nothing settled) transaction exactly as authorization_expiry (EXPIRED); on a PARTIALLY_SETTLED one it is a 409.' },
  { name: 'return', summary: 'Simulate a card return', body: AmountBody('Amount to refund; at most the net settled amount'), description: 'Refunds settled funds of a SETTLED or PARTIALLY_SETTLED DEBIT transaction: a full return makes it REFUNDED, a partial one keeps the status and raises refundedAmount.' },
  { name: 'authorization_expiry', summary: 'Simulate a card authorization expiry', body: SimulationRequest, extension: 'The operation, and the status EXPIRED it leads to (in Grid a clearing of amount 0 expires an authorization)', description: 'The authorization lapses and the held funds are released: the transaction must be fully open (AUTHORIZED, nothing settled) and becomes EXPIRED.' },
  { name: 'return_reversal', summary: 'Simulate a card return reversal', body: SimulationRequest, description: 'Reverses the return that made a REFUNDED transaction REFUNDED: refundedAmount drops by it and the status goes back to what it was before (SETTLED or PARTIALLY_SETTLED).' },
  {
    name: 'authorization_advice',
    summary: 'Simulate a card authorization advice',
    body: AmountBody('The new total authorized amount; at least the amount already settled (else 400)'),
    description:
      'Re-sizes the open authorization of an AUTHORIZED or PARTIALLY_SETTLED DEBIT transaction: authorizedAmount becomes the amount and the hold on ' +
      'the funding source what of it is not settled (up or down; pullSummary.totalAmount follows). An advice reports a decision the network already ' +
      'took, so it is not decided again: it is never declined, even above the available balance. Re-sized to exactly the settled amount, a ' +
      'PARTIALLY_SETTLED transaction becomes SETTLED.',
  },
];

const tags = ['Sandbox'];

export const sandboxCardRoutes: RouteModule = (app, { cardSimulations }) => {
  for (const sim of OPENERS) {
    app.post(
      `/sandbox/cards/:id/simulate/${sim.name}`,
      {
        config: { sandboxOnly: true, permission: 'TRANSACT', confirmsToken: true },
        schema: {
          tags,
          ...(sim.extension === undefined ? {} : extension(sim.extension)),
          summary: sim.summary,
          description: `${sim.description}${OPENING}`,
          params: IdParamSchema,
          body: sim.body,
          response: { 202: AuthorizationResponse, ...errorResponses(400, 404, 409, 415) },
        },
      },
      async (request, reply) => {
        const { platformId, tokenId } = request.principal;
        const body = request.body as Partial<AuthorizationInput> & Pick<AuthorizationInput, 'merchant'>;
        const input: AuthorizationInput = { amount: body.amount ?? 0, currency: body.currency, merchant: body.merchant };
        const accepted = await cardSimulations.authorize(platformId, request.params.id, input, tokenId, requestUnitOfWork(request), SIMULATIONS[sim.name]);
        return reply.code(202).send(accepted);
      },
    );
  }

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
        const { issuerTransactionToken } = await cardSimulations.simulate(request.principal.platformId, request.params.id, sim.name, body, requestUnitOfWork(request));
        return reply.code(202).send({ issuerTransactionToken });
      },
    );
  }
};
