/** A bank account, wallet or payment address a customer, or the platform itself, pays out to or pulls from. */
export interface ExternalAccountRow {
  id: string;
  platform_id: string;
  /** The customer it belongs to; null for the platform's own accounts. */
  customer_id: string | null;
  status: string;
  currency: string;
  account_type: string;
  /** The primary identifier (account number, IBAN, CLABE, address, ...), for duplicates and the sandbox's suffixes; null when the account has none. */
  identifier: string | null;
  /** accountInfo as given at creation, JSON. */
  account_info: string;
  platform_account_id: string | null;
  ownership_type: string | null;
  default_uma_deposit_account: number;
  beneficiary_verification_status: string | null;
  beneficiary_verified_name: string | null;
  /** The outstanding ownership challenge, JSON {id, method, messageToSign?, expiresAt}; null when none. */
  ownership_challenge: string | null;
  created_at: number;
  updated_at: number;
  /** Set when deleted: the row stays for what refers to it, and reads as unknown. */
  deleted_at: number | null;
  /** Place on the platform's lists, given at commit (store/list-clock.ts). */
  list_position?: number;
}

export interface ExternalAccountTables {
  external_accounts: ExternalAccountRow;
}
