import { CardSchema, CreateCardBody, ListCardsQuery } from '../schemas/cards.js';
import { errorResponses, IdParamSchema, pageSchema } from '../schemas/common.js';
import { memberOf, type RouteModule } from './types.js';

const tags = ['Cards'];

export const cardRoutes: RouteModule = (app, { cards }) => {
  app.post(
    '/cards',
    {
      config: { permission: 'TRANSACT', references: (request) => cards.referenceErrors(request.principal.platformId, { cardholderId: memberOf(request.body, 'cardholderId') }) },
      schema: {
        tags,
        summary: 'Issue a card',
        description:
          'Issues a VIRTUAL card to a customer of the platform. In the sandbox the card is ACTIVE at once, whatever the ' +
          "cardholder's KYC status. An unknown or foreign cardholderId is a 400 INVALID_INPUT on that field.",
        body: CreateCardBody,
        response: { 201: CardSchema, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) => {
      // Grid forwards a 3-D Secure password to the issuer and keeps nothing; with no issuer here it is dropped.
      const { threeDSecurePassword: _dropped, ...input } = request.body;
      const card = await cards.create(request.principal.platformId, request.principal.environment, input);
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

  app.get(
    '/cards/:id',
    { config: { permission: 'VIEW' }, schema: { tags, summary: 'Get a card', params: IdParamSchema, response: { 200: CardSchema, ...errorResponses(400, 404) } } },
    async (request) => cards.get(request.principal.platformId, request.params.id),
  );
};
