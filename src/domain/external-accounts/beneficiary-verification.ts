import { InvalidBankAccountError } from '../shared/errors.js';
import type { Environment } from '../platform/tokens.js';
import { isBankAccount, primaryField, testSuffix, type AccountInfo } from './account-types.js';

export const BENEFICIARY_VERIFICATION_STATUSES = ['MATCHED', 'PARTIAL_MATCH', 'NOT_MATCHED', 'UNSUPPORTED', 'CHECKED_BY_RECEIVING_FI', 'PENDING'] as const;
export type BeneficiaryVerificationStatus = (typeof BENEFICIARY_VERIFICATION_STATUSES)[number];

/** The sandbox's verification outcomes by the last three digits of the account's primary identifier (105 is a 400). */
const BY_SUFFIX: Record<string, BeneficiaryVerificationStatus> = {
  '102': 'NOT_MATCHED',
  '103': 'PARTIAL_MATCH',
  '104': 'PENDING',
  '106': 'UNSUPPORTED',
  '107': 'CHECKED_BY_RECEIVING_FI',
};
export const INVALID_ACCOUNT_SUFFIX = '105';

export interface BeneficiaryVerification {
  status: BeneficiaryVerificationStatus;
  /** The holder name the rail reports, when it reports one. */
  verifiedName: string | null;
}

/** The beneficiary's name as given: an individual's fullName or a business's legalName. */
function givenName(info: AccountInfo): string | undefined {
  const b = info.beneficiary as { fullName?: string; legalName?: string } | undefined;
  return b?.fullName ?? b?.legalName;
}

/** A fuzzy match of a name: its first words as initials ("John Doe" -> "J. Doe"). */
function fuzzy(name: string): string {
  const words = name.trim().split(/\s+/);
  return words.length < 2 ? name.toUpperCase() : [...words.slice(0, -1).map((w) => `${w[0]!.toUpperCase()}.`), words[words.length - 1]].join(' ');
}

/**
 * Name verification of a new bank account's beneficiary: in the sandbox, the outcome its identifier's
 * suffix chooses (105: the account is refused, InvalidBankAccountError naming the identifier);
 * production has no rail to ask (UNSUPPORTED). Wallets and lightning accounts are not verified (undefined).
 */
export function verifyBeneficiary(info: AccountInfo, environment: Environment): BeneficiaryVerification | undefined {
  if (!isBankAccount(info.accountType)) return undefined;
  if (environment !== 'sandbox') return { status: 'UNSUPPORTED', verifiedName: null };
  const field = primaryField(info);
  const suffix = field === undefined ? undefined : testSuffix(info[field] as string);
  if (suffix === INVALID_ACCOUNT_SUFFIX) {
    throw new InvalidBankAccountError([{ field: `accountInfo.${field!}`, message: 'names an account its payment rail reports as invalid (sandbox suffix 105)' }]);
  }
  const status = (suffix === undefined ? undefined : BY_SUFFIX[suffix]) ?? 'MATCHED';
  const name = givenName(info);
  const verifiedName = name === undefined ? null : status === 'MATCHED' ? name : status === 'PARTIAL_MATCH' ? fuzzy(name) : null;
  return { status, verifiedName };
}
