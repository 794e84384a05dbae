import { Type } from 'typebox';
import { CurrencySchema } from './cards.js';

const page = { hasMore: Type.Boolean(), nextCursor: Type.Optional(Type.String()) };
const listQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: '1 to 100, default 20' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'nextCursor of the previous page' })),
};

export const UmaProviderSchema = Type.Object({
  name: Type.String(),
  supportedRegions: Type.Array(Type.String()),
  domain: Type.String(),
  logoUrl: Type.String({ format: 'uri' }),
  supportedCurrencies: Type.Array(CurrencySchema),
  lei: Type.String(),
  allowListStatus: Type.Boolean(),
});
export const UmaProviderListSchema = Type.Object({ data: Type.Array(UmaProviderSchema), ...page, totalCount: Type.Integer() }, { description: 'The sandbox\'s UMA providers' });
export const UmaProvidersQuery = Type.Object(
  {
    countryCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    currencyCode: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{3,5}$' })),
    hasBlockedProviders: Type.Optional(Type.Boolean({ description: 'false: only providers on the allow list' })),
    sortOrder: Type.Optional(Type.Enum(['asc', 'desc'], { default: 'desc', description: 'By name' })),
    ...listQuery,
  },
  { additionalProperties: false },
);

export const DiscoveryListSchema = Type.Object(
  { data: Type.Array(Type.Object({ bankName: Type.String(), displayName: Type.String(), country: Type.String(), currency: Type.String() })) },
  { description: 'Receiving institutions' },
);
export const DiscoveriesQuery = Type.Object(
  { country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })), currency: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{3,5}$' })) },
  { additionalProperties: false },
);

export const VaspListSchema = Type.Object({ data: Type.Array(Type.Object({ vaspName: Type.String(), url: Type.Optional(Type.String({ format: 'uri' })) })), ...page }, { description: 'The VASP directory' });
export const VaspsQuery = Type.Object(listQuery, { additionalProperties: false });
