export interface BeneficialOwnerRow {
  customer_id: string;
  created_at: number;
  id: string;
  platform_id: string;
  updated_at: number;
  /** The owner exactly as the API renders it (JSON), written with every change. */
  body: string;
}

export interface BeneficialOwnerTables {
  beneficial_owners: BeneficialOwnerRow;
}
