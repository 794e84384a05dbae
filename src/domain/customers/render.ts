import type { CustomerRow, CustomerType } from '../../store/tables/customers.js';
import type { KycStatus } from './beneficial-owners.js';

/** What a platform sees of a customer. */
export interface Customer {
  id: string;
  platformCustomerId: string;
  customerType: CustomerType;
  umaAddress: string;
  kycStatus?: KycStatus;
  kybStatus?: KycStatus;
  isDeleted: boolean;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** Stored but never returned (the interface marks it write-only). */
const WRITE_ONLY = new Set(['identifier']);

export function renderCustomer(row: CustomerRow): Customer {
  const data = JSON.parse(row.data) as Record<string, unknown>;
  for (const k of WRITE_ONLY) delete data[k];
  const status = row.kyc_status as KycStatus;
  return {
    id: row.id,
    platformCustomerId: row.platform_customer_id,
    customerType: row.customer_type,
    umaAddress: row.uma_address,
    ...data,
    ...(row.customer_type === 'BUSINESS' ? { kybStatus: status } : { kycStatus: status }),
    isDeleted: row.is_deleted === 1,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}
