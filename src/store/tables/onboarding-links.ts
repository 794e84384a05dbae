export type ContactChannel = 'email' | 'phone';

/** The outstanding one-time code of a customer's contact channel (migration 025). */
export interface ContactChallengeRow {
  platform_id: string;
  customer_id: string;
  channel: ContactChannel;
  code: string;
  failed_attempts: number;
  created_at: number;
  expires_at: number;
}

/** A hosted KYC link given out for a customer (migration 025): usable once, until `expires_at`. */
export interface KycLinkRow {
  id: string;
  platform_id: string;
  customer_id: string;
  redirect_uri: string | null;
  /** The API token that asked for it. */
  requested_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface OnboardingLinkTables {
  contact_challenges: ContactChallengeRow;
  kyc_links: KycLinkRow;
}
