import { CardRevealResponseSchema, CardSchema, CreateCardBody, ListCardsQuery, UpdateCardBody } from '../schemas/cards.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { memberOf, type RouteModule } from './types.js';
import { requestUnitOfWork } from '../http/idempotency.js';
import { cardRevealPagePath } from '../schemas/sandbox-pages.js';

const tags = ['Cards'];

export const cardRoutes: RouteModule = (app, { cards, cardReveals, config }) => {
  app.post(
    '/cards',
    {
      config: { permission: 'TRANSACT', references: (request) => cards.referenceErrors(request.principal.platformId, { cardholderId: memberOf(request.body, 'cardholderId') }, requestUnitOfWork(request)) },
      schema: {
        tags,
        summary: 'Issue a card',
        description:
          'Issues a VIRTUAL card in USD to a customer of the platform, funded by fundingSources (internal accounts of the cardholder in USD, in priority order). ' +
          'The card starts PROCESSING; in the sandbox the issuance suffix (last three characters of platformCardId, else cardholderId) decides what follows, each change with a CARD.STATE_CHANGE webhook: ' +
          '001 stays PROCESSING, 002 becomes CLOSED with stateReason ISSUER_REJECTED, 005 becomes ACTIVE after SANDBOX_DELAYED_ACTIVATION_MS (30 s), any other ACTIVE at once; last4 derives from the suffix (production: it stays PROCESSING, no issuer is connected). ' +
          'In the sandbox a funding source id ending in 002 or 003 is 400 FUNDING_SOURCE_INELIGIBLE (insufficient balance check, account closed). ' +
          "An unknown or foreign cardholderId: 400 INVALID_INPUT on that field. A funding source that is unknown, another platform's or environment's, another customer's " +
          "or not in USD: 400 FUNDING_SOURCE_INELIGIBLE, details.errors naming each fundingSources[i]. maxSpendPerTransaction, when given, caps each authorization (above it: DECLINED SPEND_LIMIT_EXCEEDED). A cardholder whose KYC (or KYB) status is not APPROVED: 400 CARDHOLDER_KYC_NOT_APPROVED.",
        body: CreateCardBody,
        response: { 201: CardSchema, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) => {
      // Grid forwards a 3-D Secure password to the issuer and keeps nothing; with no issuer here it is dropped.
      const { threeDSecurePassword: _dropped, ...input } = request.body;
      const card = await cards.create(request.principal.platformId, request.principal.environment, input, requestUnitOfWork(request));
      return reply.code(201).send(card);
    },
  );

  app.get(
    '/cards',
    {
      config: { permission: 'VIEW' },
      schema: {
        tags,
        summary: 'List cards',
        description:
          'Newest first unless sortOrder=asc, keyset-paginated; a cursor continues only the filters and order it was issued for (else 400 on cursor). ' +
          'accountId matches the internal account ids a card names in fundingSources.',
        querystring: ListCardsQuery,
        response: { 200: pageSchema(CardSchema, 'A page of cards'), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { limit, cursor, sortOrder, ...filters } = request.query;
      return cards.list(request.principal.platformId, limit ?? 20, cursor, { ...filters, sortOrder: sortOrder ?? 'desc' });
    },
  );

  app.patch(
    '/cards/:id',
    {
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Update a card',
        description:
          'Changes the state, replaces the funding sources and/or sets (an integer) or clears (null) maxSpendPerTransaction; at least one of the three (else 400). state: FROZEN freezes an ACTIVE card, ACTIVE unfreezes a FROZEN one, ' +
          'CLOSED closes an ACTIVE or FROZEN card (final; stateReason CLOSED_BY_PLATFORM). Any other state change: 409 INVALID_STATE_TRANSITION with details.currentStatus; ' +
          'on a CLOSED card, state CLOSED is 409 CARD_ALREADY_CLOSED and a change of fundingSources or maxSpendPerTransaction alone 409 CARD_NOT_MUTABLE. fundingSources are checked as on issuance ' +
          '(400 FUNDING_SOURCE_INELIGIBLE); neither fundingSources nor maxSpendPerTransaction can come with state CLOSED (400 INVALID_INPUT naming the field). A state change sends CARD.STATE_CHANGE; given fundingSources send CARD.FUNDING_SOURCE_CHANGE.',
        params: IdParamSchema,
        body: UpdateCardBody,
        response: { 200: CardSchema, ...errorResponses(400, 404, 409, 415) },
      },
    },
    async (request) => cards.update(request.principal.platformId, request.principal.environment, request.params.id, request.body, requestUnitOfWork(request)),
  );

  app.post(
    '/cards/:id/reveal',
    {
      // It hands out the full card details: a TRANSACT token at least.
      config: { permission: 'TRANSACT' },
      schema: {
        tags,
        summary: 'Reveal card details',
        description:
          "Answers a signed URL (panEmbedUrl) to a page showing the card's PAN, CVV and expiry, and its expiresAt (CARD_REVEAL_TTL_MS, 5 minutes by default). The URL works once: " +
          'a second use, an expired or a forged URL answers 404 REFERENCE_NOT_FOUND, like an unknown path. In the sandbox the PAN is a sandbox number (Luhn-valid, ending in last4, the same for every reveal of the card). ' +
          'Each reveal is recorded with the API token that asked for it. A production token, or any token on a production deployment: 501 NOT_IMPLEMENTED (no card issuer is connected here).',
        params: IdParamSchema,
        response: { 200: CardRevealResponseSchema, ...errorResponses(400, 404, 415, 501) },
      },
    },
    async (request) => {
      // A production deployment serves no sandbox page: every token there is answered as production.
      const environment = config.serviceEnv === 'production' ? 'production' : request.principal.environment;
      const grant = await cardReveals.reveal(request.principal.platformId, environment, request.principal.tokenId, request.params.id, requestUnitOfWork(request));
      return { panEmbedUrl: `${request.protocol}://${request.host}${cardRevealPagePath(grant.token)}`, expiresAt: grant.expiresAt };
    },
  );

  app.get(
    '/cards/:id',
    { config: { permission: 'VIEW' }, schema: { tags, summary: 'Get a card', params: IdParamSchema, response: { 200: CardSchema, ...errorResponses(400, 404) } } },
    async (request) => cards.get(request.principal.platformId, request.params.id),
  );
};
