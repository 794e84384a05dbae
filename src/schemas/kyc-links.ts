import { Type } from 'typebox';

/** The hosted KYC page lives outside the versioned API: the URL is its only credential. */
const KYC_PAGE = '/sandbox-pages/kyc';

export const kycPagePath = (token: string) => `${KYC_PAGE}/${encodeURIComponent(token)}`;
export const KYC_PAGE_ROUTE = `${KYC_PAGE}/:token`;
/** The path as logged: the token is a bearer secret until used. */
export const KYC_PAGE_LOGGED = `${KYC_PAGE}/<token>`;

export const KycLinkCreateBody = Type.Object(
  {
    redirectUri: Type.Optional(
      Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description: 'Where the page sends the person (303) once the flow is finished: https:// (or http:// for local development)' }),
    ),
  },
  { additionalProperties: false },
);

export const KycLinkResponseSchema = Type.Object(
  {
    kycUrl: Type.String({ description: 'The hosted page: single-use, until expiresAt' }),
    expiresAt: Type.String({ format: 'date-time' }),
    provider: Type.Enum(['SUMSUB'], { description: 'The provider the sandbox names; no provider SDK token is issued' }),
    token: Type.Optional(Type.String({ description: 'A provider SDK token: never issued by the sandbox' })),
  },
  { additionalProperties: false },
);

export const KycPageParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
