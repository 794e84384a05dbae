import { Type } from 'typebox';
import { INTERNAL_ACCOUNT_STATUSES, INTERNAL_ACCOUNT_TYPES } from '../domain/accounts/internal-accounts.js';
import { CurrencySchema } from './cards.js';
import { PageQuerySchema } from './common.js';

const Money = (description: string) =>
  Type.Object({ amount: Type.Integer({ description: 'In the smallest unit of the currency (cents for USD)' }), currency: CurrencySchema }, { description });

export const InternalAccountTypeSchema = Type.Enum([...INTERNAL_ACCOUNT_TYPES], {
  description: 'INTERNAL_FIAT for a fiat currency, INTERNAL_CRYPTO for BTC, USDC and USDT; EMBEDDED_WALLET is never opened here',
});

export const PaymentInstructionsSchema = Type.Object(
  {
    instructionsNotes: Type.Optional(Type.String()),
    isPlatformAccount: Type.Boolean({ description: "True on the platform's own accounts" }),
    accountOrWalletInfo: Type.Object(
      { accountType: Type.String({ description: 'USD_ACCOUNT, EUR_ACCOUNT, MXN_ACCOUNT, GBP_ACCOUNT, BRL_ACCOUNT, BITCOIN_L1 or SOLANA_WALLET here' }) },
      { additionalProperties: true, description: "The coordinates, as the accountType's PaymentInstructions variant has them" },
    ),
  },
  { description: 'How to pay into the account' },
);

export const InternalAccountSchema = Type.Object(
  {
    id: Type.String({ examples: ['InternalAccount:019542f5-b3e7-7d02-8000-000000000020'] }),
    customerId: Type.Optional(Type.String({ description: "The customer the account belongs to; absent on the platform's own accounts" })),
    type: InternalAccountTypeSchema,
    status: Type.Enum([...INTERNAL_ACCOUNT_STATUSES], { description: 'Accounts are ACTIVE from their creation and stay so in the sandbox' }),
    balance: Money('Available to spend: funds held by open card authorizations are deducted'),
    totalBalance: Money('Including the funds held by open card authorizations'),
    fundingPaymentInstructions: Type.Array(PaymentInstructionsSchema, {
      description:
        'Sandbox coordinates derived from the account id (checksums valid, nothing is ever paid to them; POST /sandbox/internal-accounts/{accountId}/fund credits the account); empty for a currency without a rail here',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time', description: 'Changes with every balance movement' }),
  },
  { description: 'An internal account and its balances' },
);

export const ListInternalAccountsQuery = Type.Object(
  {
    ...PageQuerySchema,
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "Only this customer's accounts" })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{3,5}$', description: 'Only accounts in this currency code' })),
    type: Type.Optional(InternalAccountTypeSchema),
  },
  { additionalProperties: false },
);

export const AccountIdParamSchema = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

export const FundInternalAccountBody = Type.Object(
  { amount: Type.Integer({ minimum: 1, maximum: 100_000_000_000, description: "Amount to credit, in the smallest unit of the account's currency" }) },
  { additionalProperties: false },
);

export const ListPlatformInternalAccountsQuery = Type.Object(
  {
    currency: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{2,10}$', description: 'Only accounts in this currency code' })),
    type: Type.Optional(InternalAccountTypeSchema),
  },
  { additionalProperties: false },
);

export const PlatformInternalAccountListSchema = Type.Object({ data: Type.Array(InternalAccountSchema) }, { description: "The platform's own internal accounts" });
