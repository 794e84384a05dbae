import { Type } from 'typebox';
import { extension } from './common.js';
import { text } from './fields.js';

const MAX_AMOUNT = 100_000_000_000;
const Amount = (description: string, minimum = 1) => Type.Integer({ minimum, maximum: MAX_AMOUNT, description });
const CardTransactionId = Type.String({ minLength: 1, maxLength: 128, description: 'The CardTransaction to act against; it must be on this card' });

export const AuthorizationBody = Type.Object(
  {
    amount: Amount('Amount to authorize, in the smallest unit of the currency'),
    currency: Type.Object(
      {
        code: Type.String({ pattern: '^[A-Z]{3}$', description: "Must be the card's currency" }),
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Informational; the currency keeps its own name' })),
        symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'Informational; the currency keeps its own symbol' })),
        decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 18, description: "When given, must be the currency's number of decimals (2 for USD)" })),
      },
      { additionalProperties: false, description: 'Required, as the document requires it' },
    ),
    merchant: Type.Object(
      {
        descriptor: text(100),
        mcc: Type.Optional(Type.String({ pattern: '^[0-9]{4}$', description: 'Merchant category code' })),
        country: Type.Optional(Type.String({ format: 'iso3166-1-alpha-2' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export const BalanceInquiryBody = Type.Object(
  { merchant: AuthorizationBody.properties.merchant },
  { additionalProperties: false, description: 'A balance inquiry is a zero-amount authorization: only the merchant' },
);
export const AmountBody = (what: string, minimum = 1) =>
  Type.Object({ cardTransactionId: CardTransactionId, amount: Amount(what, minimum) }, { additionalProperties: false });
export const SimulationRequest = Type.Object({ cardTransactionId: CardTransactionId }, { additionalProperties: false, description: 'Sandbox card simulation request' });

export const SimulationResponse = Type.Object(
  { issuerTransactionToken: Type.String({ description: 'Fresh per call; the landed card operation and its webhook carry it' }) },
  { description: 'Accepted; the operation lands in the background' },
);
export const AuthorizationResponse = Type.Object(
  {
    issuerTransactionToken: SimulationResponse.properties.issuerTransactionToken,
    cardTransactionId: Type.String({
      ...extension('The property cardTransactionId'),
      description: 'The id the new transaction will have; later simulations may name it at once',
    }),
  },
  { description: 'Accepted; the transaction appears (AUTHORIZED, SETTLED or DECLINED) when it lands' },
);
