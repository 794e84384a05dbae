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
  created_at: number;
  updated_at: number;
}

export interface CustomerTables {
  customers: CustomerRow;
}
