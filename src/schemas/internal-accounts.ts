import { Type } from 'typebox';
import { INTERNAL_ACCOUNT_STATUSES, INTERNAL_ACCOUNT_TYPES } from '../domain/accounts/internal-accounts.js';
import { CurrencySchema } from './cards.js';
import { PageQuerySchema } from './common.js';

const Money = (description: string) =>
  Type.Object({ amount: Type.Integer({ description: 'In the smallest unit of the currency (cents for USD)' }), currency: CurrencySchema }, { description });

export const InternalAccountTypeSchema = Type.Enum([...INTERNAL_ACCOUNT_TYPES], { description: 'Every customer gets an INTERNAL_FIAT account in USD' });

export const InternalAccountSchema = Type.Object(
  {
    id: Type.String({ examples: ['InternalAccount:019542f5-b3e7-7d02-8000-000000000020'] }),
    customerId: Type.String({ description: 'The customer the account belongs to' }),
    type: InternalAccountTypeSchema,
    status: Type.Enum([...INTERNAL_ACCOUNT_STATUSES], { description: 'Accounts are ACTIVE from their creation' }),
    balance: Money('Available to spend: funds held by open card authorizations are deducted'),
    totalBalance: Money('Including the funds held by open card authorizations'),
    fundingPaymentInstructions: Type.Array(
      Type.Object({ accountOrWalletInfo: Type.Object({ accountType: Type.String() }, { additionalProperties: true }) }, { additionalProperties: true }),
      { description: 'How to pay into the account; empty in the sandbox, where POST /sandbox/internal-accounts/{accountId}/fund credits it' },
    ),
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
