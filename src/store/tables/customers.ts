export type CustomerType = 'INDIVIDUAL' | 'BUSINESS';

export interface CustomerRow {
  id: string;
  platform_id: string;
  customer_type: CustomerType;
  platform_customer_id: string;
  kyc_status: string;
  /** The customer's own fields (names, business info, address) as JSON. */
  data: string;
  /** Beneficial owners of this customer, kept in step with every insert so listing never counts rows. */
  owner_count: number;
  /** Lower case; unique among the platform's active customers. */
  uma_address: string;
  /** 1 once deleted (soft delete): kept and readable, out of lists and of the uniqueness rules. */
  is_deleted: number;
  /** The region and currencies of `data` again, for list filters; currency_list is ",USD,USDC," or "". */
  region: string | null;
  currency_list: string;
  /** The last owner's creation time, stamped under this row's lock (see countNewOwner); 0 for none. */
  owner_clock?: number;
  /** Moved by every write to the customer's owners (see migration 015); 0 before any. */
  owners_version?: number;
  created_at: number;
  /** Place on the platform's lists, given at commit (store/list-clock.ts); inserts write the creation time until then. */
  list_position?: number;
  updated_at: number;
}

export interface CustomerTables {
  customers: CustomerRow;
}
