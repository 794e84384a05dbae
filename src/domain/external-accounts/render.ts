import type { ExternalAccountRow } from '../../store/tables/external-accounts.js';
import { isBankAccount, PAYMENT_RAILS, type AccountInfo } from './account-types.js';
import type { BeneficiaryVerificationStatus } from './beneficiary-verification.js';
import type { ExternalAccountStatus, OwnershipType } from './statuses.js';

/** An external account as the platform sees it (the document's ExternalAccount). */
export interface ExternalAccount {
  id: string;
  customerId?: string;
  status: ExternalAccountStatus;
  platformAccountId?: string;
  ownershipType?: OwnershipType;
  currency: string;
  defaultUmaDepositAccount: boolean;
  beneficiaryVerificationStatus?: BeneficiaryVerificationStatus;
  beneficiaryVerifiedData?: { fullName: string };
  accountInfo: AccountInfo;
}

export function renderExternalAccount(row: ExternalAccountRow): ExternalAccount {
  const info = JSON.parse(row.account_info) as AccountInfo;
  const accountInfo = isBankAccount(info.accountType) ? { ...info, paymentRails: [...PAYMENT_RAILS[info.accountType]] } : info;
  return {
    id: row.id,
    ...(row.customer_id === null ? {} : { customerId: row.customer_id }),
    status: row.status as ExternalAccountStatus,
    ...(row.platform_account_id === null ? {} : { platformAccountId: row.platform_account_id }),
    ...(row.ownership_type === null ? {} : { ownershipType: row.ownership_type as OwnershipType }),
    currency: row.currency,
    defaultUmaDepositAccount: row.default_uma_deposit_account === 1,
    ...(row.beneficiary_verification_status === null ? {} : { beneficiaryVerificationStatus: row.beneficiary_verification_status as BeneficiaryVerificationStatus }),
    ...(row.beneficiary_verified_name === null ? {} : { beneficiaryVerifiedData: { fullName: row.beneficiary_verified_name } }),
    accountInfo,
  };
}
