/** One submission of a customer for KYC/KYB verification, with the outcome it got. */
export interface VerificationRow {
  id: string;
  platform_id: string;
  customer_id: string;
  /** The interface's VerificationStatus. */
  status: string;
  /** The VerificationError objects as JSON (an array; empty when nothing blocks). */
  errors: string;
  created_at: number;
  updated_at: number;
  /** Place on the platform's lists, given at commit (store/list-clock.ts). */
  list_position?: number;
}

export interface VerificationTables {
  verifications: VerificationRow;
}
