import { Type } from 'typebox';
import { errorResponses, IdParamSchema, pageSchema, PageQuerySchema } from '../http/schemas.js';
import type { RouteModule } from './types.js';

export const CurrencySchema = Type.Object({
  code: Type.String({ description: 'ISO 4217 code', examples: ['USD'] }),
  name: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ description: 'Digits after the decimal point; amounts are in the smallest unit' }),
});

export const CardSchema = Type.Object(
  {
    id: Type.String({ examples: ['Card:019542f5-b3e7-7d02-8000-000000000010'] }),
    cardholderId: Type.String({ description: 'The customer who holds the card' }),
    platformCardId: Type.String({ description: 'Platform-specific card identifier; generated when not given' }),
    state: Type.Enum(['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'], {
      description: 'A sandbox card is ACTIVE at once; a production card stays PROCESSING (no issuer is connected)',
    }),
    stateReason: Type.Null({ description: 'Set when a card is CLOSED or rejected; always null here' }),
    brand: Type.Enum(['VISA', 'MASTERCARD']),
    form: Type.Enum(['VIRTUAL']),
    last4: Type.String({ pattern: '^[0-9]{4}$' }),
    expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
    expYear: Type.Integer(),
    fundingSources: Type.Array(Type.String(), { description: 'Internal account ids, in priority order (not verified in the sandbox)' }),
    currency: Type.String({ description: 'Currency the card transacts in' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A card' },
);

const CreateCardBody = Type.Object(
  {
    cardholderId: Type.String({ minLength: 1, maxLength: 128, description: 'A customer of this platform' }),
    form: Type.Enum(['VIRTUAL'], { description: 'Only VIRTUAL cards exist' }),
    platformCardId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    fundingSources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 10, uniqueItems: true })),
  },
  { additionalProperties: false },
);

const tags = ['Cards'];

export const cardRoutes: RouteModule = (app, { cards }) => {
  app.post(
    '/cards',
    {
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
      const card = await cards.create(request.principal.platformId, request.principal.environment, request.body);
      return reply.code(201).send(card);
    },
  );

  app.get(
    '/cards',
    {
      schema: {
        tags,
        summary: 'List cards',
        description: 'Oldest first, keyset-paginated.',
        querystring: Type.Object(
          { ...PageQuerySchema, cardholderId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only this customer\'s cards' })) },
          { additionalProperties: false },
        ),
        response: { 200: pageSchema(CardSchema, 'A page of cards'), ...errorResponses(400) },
      },
    },
    async (request) => cards.list(request.principal.platformId, request.query.limit ?? 20, request.query.cursor, request.query.cardholderId),
  );

  app.get(
    '/cards/:id',
    { schema: { tags, summary: 'Get a card', params: IdParamSchema, response: { 200: CardSchema, ...errorResponses(400, 404) } } },
    async (request) => cards.get(request.principal.platformId, request.params.id),
  );
};
