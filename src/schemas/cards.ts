import { Type } from 'typebox';
import { CARD_STATE_REASONS, REQUESTABLE_CARD_STATES } from '../domain/cards/card-lifecycle.js';
import { PageQuerySchema, SortOrderSchema } from './common.js';
import { text } from './fields.js';

export const CurrencySchema = Type.Object({
  code: Type.String({ description: 'ISO 4217 code', examples: ['USD'] }),
  name: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer({ description: 'Digits after the decimal point; amounts are in the smallest unit' }),
});

const CARD_STATES = ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'] as const;

const SPEND_LIMIT_RULE =
  "Largest amount a single card transaction may authorize, in the smallest unit of the card's currency; a transaction for exactly this amount is allowed. " +
  'Checked when an authorization is decided: above it, the authorization is DECLINED with declineReason SPEND_LIMIT_EXCEEDED';
// The document's int64, kept to what a JSON number carries exactly.
const spendLimit = (description?: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...(description === undefined ? {} : { description }) });

export const CardSchema = Type.Object(
  {
    id: Type.String({ examples: ['Card:019542f5-b3e7-7d02-8000-000000000010'] }),
    cardholderId: Type.String({ description: 'The customer who holds the card' }),
    platformCardId: Type.String({ description: 'Platform-specific card identifier; generated when not given' }),
    state: Type.Enum([...CARD_STATES], {
      description:
        'A new card is PROCESSING; in the sandbox the last three characters of platformCardId (else cardholderId) decide what follows: 001 stays PROCESSING, 002 becomes CLOSED (ISSUER_REJECTED), ' +
        '005 becomes ACTIVE after SANDBOX_DELAYED_ACTIVATION_MS, any other ACTIVE at once, each change with CARD.STATE_CHANGE; a production card stays PROCESSING (no issuer is connected). ' +
        'PATCH /cards/{id} moves it between ACTIVE and FROZEN, and to CLOSED (final). PENDING_KYC is never used here: issuance needs the cardholder APPROVED',
    }),
    stateReason: Type.Union([Type.Enum([...CARD_STATE_REASONS]), Type.Null()], { description: 'CLOSED_BY_PLATFORM once the platform closed the card, ISSUER_REJECTED when the issuer refused to provision it (sandbox suffix 002); otherwise null' }),
    brand: Type.Enum(['VISA', 'MASTERCARD']),
    form: Type.Enum(['VIRTUAL']),
    last4: Type.String({ pattern: '^[0-9]{4}$', description: 'In the sandbox: 4 then a digit per character of the issuance suffix (the last three characters of platformCardId, else cardholderId)' }),
    expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
    expYear: Type.Integer(),
    fundingSources: Type.Array(Type.String(), { description: "Internal account ids of the cardholder in the card's currency, in priority order; at least one" }),
    maxSpendPerTransaction: Type.Union([spendLimit(), Type.Null()], { description: `${SPEND_LIMIT_RULE}. Null: no per-transaction limit` }),
    currency: Type.String({ description: 'Currency the card transacts in' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A card' },
);

const FUNDING_SOURCES_RULE =
  "Internal account ids, in priority order: each must be an internal account of the cardholder in the card's currency (USD), else 400 FUNDING_SOURCE_INELIGIBLE naming fundingSources[i]. " +
  'In the sandbox an id ending in 002 (insufficient balance check) or 003 (account closed) is refused that way too, whatever the account';
const fundingSources = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, uniqueItems: true, description });

export const CreateCardBody = Type.Object(
  {
    cardholderId: Type.String({ minLength: 1, maxLength: 128, description: 'A customer of this platform' }),
    form: Type.Enum(['VIRTUAL'], { description: 'Only VIRTUAL cards exist' }),
    platformCardId: Type.Optional(text(200)),
    fundingSources: fundingSources(FUNDING_SOURCES_RULE),
    maxSpendPerTransaction: Type.Optional(spendLimit(`${SPEND_LIMIT_RULE}. Omit it for no limit`)),
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

export const UpdateCardBody = Type.Object(
  {
    state: Type.Optional(
      Type.Enum([...REQUESTABLE_CARD_STATES], {
        description: 'FROZEN freezes an ACTIVE card, ACTIVE unfreezes a FROZEN one, CLOSED closes an ACTIVE or FROZEN card (final); any other change is 409',
      }),
    ),
    fundingSources: Type.Optional(fundingSources(`Replaces the card's funding sources. ${FUNDING_SOURCES_RULE}. Not with state CLOSED`)),
    maxSpendPerTransaction: Type.Optional(
      Type.Union([spendLimit(), Type.Null()], {
        description: `Replaces the card's limit; null clears it, omitted leaves it as it is. ${SPEND_LIMIT_RULE}. Not with state CLOSED`,
      }),
    ),
  },
  { additionalProperties: false, description: 'At least one of state, fundingSources and maxSpendPerTransaction' },
);

export const CardRevealResponseSchema = Type.Object(
  {
    panEmbedUrl: Type.String({
      format: 'uri',
      description:
        "URL of a page showing the card's PAN, CVV and expiry (in the sandbox: a sandbox PAN that passes the Luhn check and ends in the card's last4). A bearer secret: it works once, until expiresAt; never store or log it",
    }),
    expiresAt: Type.String({ format: 'date-time', description: 'When the URL stops working (CARD_REVEAL_TTL_MS after the request)' }),
  },
  { description: 'A short-lived, single-use URL to the card details' },
);
