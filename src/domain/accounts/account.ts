import type { CurrencyAmount } from '../shared/currencies.js';
import type { PaymentInstructions } from './funding-instructions.js';

export const INTERNAL_ACCOUNT_TYPES = ['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET'] as const;
export const INTERNAL_ACCOUNT_STATUSES = ['PENDING', 'ACTIVE', 'CLOSED', 'FROZEN', 'FAILED'] as const;
export const BALANCE_UPDATED_EVENT = 'INTERNAL_ACCOUNT.BALANCE_UPDATED';

/** An internal account as the interface has it, a customer's or the platform's. */
export interface InternalAccount {
  id: string;
  /** Absent on the platform's own accounts. */
  customerId?: string;
  type: (typeof INTERNAL_ACCOUNT_TYPES)[number];
  status: (typeof INTERNAL_ACCOUNT_STATUSES)[number];
  /** Available to spend: open holds deducted. */
  balance: CurrencyAmount;
  /** Including held funds. */
  totalBalance: CurrencyAmount;
  fundingPaymentInstructions: PaymentInstructions[];
  createdAt: string;
  updatedAt: string;
}

export interface AccountListFilter {
  customerId?: string | undefined;
  currency?: string | undefined;
  type?: InternalAccount['type'] | undefined;
}

