import { Type } from 'typebox';
import { PageQuerySchema, SortOrderSchema } from './common.js';
import { text } from './fields.js';

export const CurrencySchema = Type.Object({
  code: Type.String({ description: 'ISO 4217 code', examples: ['USD'] }),
  name: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ description: 'Digits after the decimal point; amounts are in the smallest unit' }),
});

const CARD_STATES = ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'] as const;

export const CardSchema = Type.Object(
  {
    id: Type.String({ examples: ['Card:019542f5-b3e7-7d02-8000-000000000010'] }),
    cardholderId: Type.String({ description: 'The customer who holds the card' }),
    platformCardId: Type.String({ description: 'Platform-specific card identifier; generated when not given' }),
    state: Type.Enum([...CARD_STATES], {
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

export const CreateCardBody = Type.Object(
  {
    cardholderId: Type.String({ minLength: 1, maxLength: 128, description: 'A customer of this platform' }),
    form: Type.Enum(['VIRTUAL'], { description: 'Only VIRTUAL cards exist' }),
    platformCardId: Type.Optional(text(200)),
    fundingSources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 10, uniqueItems: true })),
    threeDSecurePassword: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        writeOnly: true,
        description: "Static 3-D Secure password. As in Grid it is not retained: the sandbox has no issuer to forward it to, so it is discarded and never returned",
      }),
    ),
  },
  { additionalProperties: false },
);

const id = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 128, description }));

export const ListCardsQuery = Type.Object(
  {
    ...PageQuerySchema,
    cardholderId: id("Only this customer's cards"),
    accountId: id('Only cards whose fundingSources contain this internal account id'),
    platformCardId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only the card with this platform-specific identifier' })),
    state: Type.Optional(Type.Enum([...CARD_STATES], { description: 'Only cards in this state' })),
    sortOrder: Type.Optional(SortOrderSchema),
  },
  { additionalProperties: false },
);
