/**
 * A customer's internal account. The balances are kept on the row in the same transaction as each
 * ledger entry, so reading an account never sums its entries; the entries are the record.
 */
export interface InternalAccountRow {
  id: string;
  platform_id: string;
  customer_id: string;
  type: string;
  status: string;
  currency: string;
  /** Sum of every entry's amount: what can be spent (holds deducted). */
  available_balance: number;
  /** Sum of the amounts of every entry that is not a hold or a hold release. */
  total_balance: number;
  created_at: number;
  updated_at: number;
  /** Place on the platform's lists, given at commit (store/list-clock.ts). */
  list_position?: number;
}

/**
 * One movement of an account, append-only. `amount` is signed, in minor units, and is the
 * movement's effect on the available balance; holds and their releases leave the total unchanged.
 */
export interface LedgerEntryRow {
  id: string;
  platform_id: string;
  /** A customer's internal account or one of the platform's own (migration 026). */
  account_id: string;
  kind: string;
  amount: number;
  /** The card transaction and operation that made it; null for a funding. */
  card_transaction_id: string | null;
  card_operation_id: string | null;
  /** The transfer that made it (migration 027); null or absent otherwise. */
  payment_transaction_id?: string | null;
  created_at: number;
}

/** One of the platform's own accounts (no customer): one per type and currency (migration 026). */
export type PlatformInternalAccountRow = Omit<InternalAccountRow, 'customer_id' | 'list_position'>;

export interface InternalAccountTables {
  internal_accounts: InternalAccountRow;
  platform_internal_accounts: PlatformInternalAccountRow;
  ledger_entries: LedgerEntryRow;
}
