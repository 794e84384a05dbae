import { Type } from 'typebox';
import { CurrencySchema } from './cards.js';

const CurrencyPreferenceSchema = Type.Object({
  currency: CurrencySchema,
  estimatedExchangeRate: Type.Number({ exclusiveMinimum: 0, description: "Sending units per receiving unit from the sender's currency (the customer's first, else USD); not locked" }),
  min: Type.Integer({ exclusiveMinimum: 0, description: 'Smallest amount received, minor units' }),
  max: Type.Integer({ exclusiveMinimum: 0, description: 'Largest amount received, minor units' }),
});

const lookupFields = {
  supportedCurrencies: Type.Array(CurrencyPreferenceSchema, { description: 'What the receiver takes' }),
  lookupId: Type.String({ description: 'Pass to POST /quotes as lookupId (optional there)' }),
};

export const ReceiverUmaLookupSchema = Type.Object({ ...lookupFields, receiverUmaAddress: Type.String() }, { description: 'What a UMA address receives' });
export const ReceiverExternalAccountLookupSchema = Type.Object({ ...lookupFields, accountId: Type.String() }, { description: 'What an external account receives' });

export const ReceiverLookupQuery = Type.Object(
  {
    senderUmaAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The sender\'s UMA address; recorded, not checked' })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'The sending customer (its first currency prices the estimate)' })),
  },
  { additionalProperties: false },
);

export const ReceiverUmaParams = Type.Object({ receiverUmaAddress: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: false });
export const ReceiverAccountParams = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
