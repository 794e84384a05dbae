import type { CustomerRow } from '../../store/tables/customers.js';
import type { KycStatus } from './beneficial-owners.js';
import { magicSuffix } from './kyc.js';

/** The customer field a business's answers on the hosted page are kept in (this service's extension). */
export const HOSTED_KYB_ANSWERS = 'hostedKybAnswers';

/** A button of the hosted page: the status it gives the customer. */
export interface HostedOutcome {
  status: KycStatus;
  label: string;
}

/** A field the hosted page asks for before any outcome. */
export interface AskedField {
  name: 'fullName' | 'beneficialOwnerName' | 'formationDocument';
  label: string;
}

export interface HostedFlow {
  outcomes: HostedOutcome[];
  asks: AskedField[];
}

const REVIEWED: HostedOutcome[] = [
  { status: 'APPROVED', label: 'Finish: verified' },
  { status: 'PENDING', label: 'Finish: send for manual review' },
  { status: 'REJECTED', label: 'Fail the check' },
];

/**
 * What the hosted flow offers a customer. A decided customer (APPROVED or REJECTED): nothing. An
 * individual: the four statuses the fullName suffixes give, and its fullName when none is on file. A
 * business, by the suffix of businessInfo.registrationNumber as the guide has it: 002 rejected,
 * 001 and 003 reviewed with the beneficial owner and formation document asked for, any other
 * approved with nothing asked.
 */
export function hostedFlow(row: CustomerRow): HostedFlow {
  if (row.kyc_status === 'APPROVED' || row.kyc_status === 'REJECTED') return { outcomes: [], asks: [] };
  const data = JSON.parse(row.data) as { fullName?: unknown; businessInfo?: { registrationNumber?: unknown } };
  if (row.customer_type === 'INDIVIDUAL') {
    return {
      outcomes: [...REVIEWED, { status: 'UNVERIFIED', label: 'Leave without finishing' }],
      asks: typeof data.fullName === 'string' ? [] : [{ name: 'fullName', label: 'Full legal name' }],
    };
  }
  const suffix = magicSuffix(data.businessInfo?.registrationNumber);
  if (suffix === '002') return { outcomes: [{ status: 'REJECTED', label: 'Finish' }], asks: [] };
  if (suffix === '001' || suffix === '003') {
    return {
      outcomes: REVIEWED,
      asks: [
        { name: 'beneficialOwnerName', label: 'Beneficial owner or control person (full name)' },
        { name: 'formationDocument', label: 'Formation document (file name)' },
      ],
    };
  }
  return { outcomes: [{ status: 'APPROVED', label: 'Finish' }], asks: [] };
}
