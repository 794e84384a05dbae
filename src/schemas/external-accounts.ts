import { Type } from 'typebox';
import { BENEFICIARY_VERIFICATION_STATUSES } from '../domain/external-accounts/beneficiary-verification.js';
import { EXTERNAL_ACCOUNT_STATUSES, OWNERSHIP_TYPES } from '../domain/external-accounts/statuses.js';
import { OWNERSHIP_METHODS, SANDBOX_INVALID_SIGNATURE } from '../domain/external-accounts/ownership-verification.js';
import { PageQuerySchema } from './common.js';
import { ExternalAccountCreateInfoSchema, ExternalAccountInfoSchema, tagged } from './external-account-info.js';
import { text } from './fields.js';

const OwnershipTypeSchema = Type.Enum([...OWNERSHIP_TYPES], {
  description: 'Whether the account is its owner\'s own (FIRST_PARTY) or someone else\'s; a FIRST_PARTY self-custody wallet (no vaspName) must have its ownership verified',
});
const CurrencySchema = Type.String({ pattern: '^[A-Z0-9]{3,5}$', description: 'ISO 4217 code (or a crypto asset code such as BTC or USDC); a bank account type takes its own currency only (USD_ACCOUNT: USD; SWIFT_ACCOUNT: any)' });

export const ExternalAccountSchema = Type.Object(
  {
    id: Type.String({ examples: ['ExternalAccount:019542f5-b3e7-7d02-8000-000000000011'] }),
    customerId: Type.Optional(Type.String({ description: 'The customer the account belongs to; absent on the platform\'s own accounts' })),
    status: Type.Enum([...EXTERNAL_ACCOUNT_STATUSES], {
      description:
        'ACTIVE once usable; PENDING while its beneficiary verification is (sandbox suffix 104, ACTIVE after SANDBOX_EXTERNAL_ACCOUNT_REVIEW_DELAY_MS); PENDING_OWNERSHIP_VERIFICATION for a FIRST_PARTY self-custody wallet until a challenge is completed; UNVERIFIED after a failed one. Each change sends EXTERNAL_ACCOUNT.STATUS_UPDATED',
    }),
    platformAccountId: Type.Optional(Type.String()),
    ownershipType: Type.Optional(OwnershipTypeSchema),
    currency: Type.String(),
    defaultUmaDepositAccount: Type.Boolean({ description: 'Whether incoming UMA payments to the customer go to this account; at most one account of a customer' }),
    beneficiaryVerificationStatus: Type.Optional(Type.Enum([...BENEFICIARY_VERIFICATION_STATUSES], { description: 'Bank accounts only: the beneficiary name checked against the account holder (sandbox: by the identifier\'s 1xx suffix)' })),
    beneficiaryVerifiedData: Type.Optional(Type.Object({ fullName: Type.Optional(Type.String({ description: 'The holder name the rail reported' })) })),
    accountInfo: ExternalAccountInfoSchema,
  },
  { description: 'A bank account, wallet or payment address of a customer or of the platform' },
);

const createFields = {
  currency: CurrencySchema,
  platformAccountId: Type.Optional(text(200, "The platform's own identifier for the account")),
  ownershipType: Type.Optional(OwnershipTypeSchema),
  accountInfo: ExternalAccountCreateInfoSchema,
};

export const CreateExternalAccountBody = Type.Object(
  {
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'A customer of this platform; absent: the account is the platform\'s own' })),
    ...createFields,
    defaultUmaDepositAccount: Type.Optional(Type.Boolean({ default: false, description: "true: this becomes the customer's default UMA deposit account (replacing any other)" })),
  },
  { additionalProperties: false },
);

export const CreatePlatformExternalAccountBody = Type.Object(createFields, { additionalProperties: false });

const filter = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 128, description }));

export const ListExternalAccountsQuery = Type.Object(
  { ...PageQuerySchema, currency: filter('Only accounts in this currency'), customerId: filter("Only this customer's accounts") },
  { additionalProperties: false },
);

export const ListPlatformExternalAccountsQuery = Type.Object({ ...PageQuerySchema, currency: filter('Only accounts in this currency') }, { additionalProperties: false });

export const ExternalAccountIdParamSchema = Type.Object({ externalAccountId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

export const OwnershipChallengeBody = Type.Object({ method: Type.Enum([...OWNERSHIP_METHODS], { description: 'WALLET_SIGNATURE: sign messageToSign; LIVENESS: a hosted flow' }) }, { additionalProperties: false });

export const OwnershipChallengeSchema = tagged('method', [
  Type.Object({ method: Type.Literal('WALLET_SIGNATURE'), messageToSign: Type.String({ description: 'Sign exactly this text' }), expiresAt: Type.String({ format: 'date-time' }) }),
  Type.Object({
    method: Type.Literal('LIVENESS'),
    verificationLink: Type.String({ format: 'uri', description: 'Sandbox: a link on a reserved domain; the challenge completes by itself after SANDBOX_EXTERNAL_ACCOUNT_REVIEW_DELAY_MS' }),
    token: Type.Optional(Type.String()),
    expiresAt: Type.String({ format: 'date-time' }),
  }),
]);

export const OwnershipVerifyBody = Type.Object(
  {
    signature: Type.String({ minLength: 1, maxLength: 1024, description: `The wallet's signature of messageToSign. Sandbox: any signature is accepted except "${SANDBOX_INVALID_SIGNATURE}"` }),
    signatureScheme: Type.Optional(Type.Enum(['bip137', 'electrum'], { default: 'bip137', description: 'Bitcoin message-signing format; ignored on other chains' })),
  },
  { additionalProperties: false },
);
