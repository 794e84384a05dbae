import * as repo from '../store/customers-repo.js';
import type { Store } from '../store/store.js';
import type { CustomerRow, CustomerType } from '../store/tables/customers.js';
import type { Address, KycStatus } from './beneficial-owners.js';
import { NotFoundError, type FieldError } from './errors.js';
import { newId } from './ids.js';
import { openDefaultAccount } from './internal-accounts.js';
import type { Cursors, Page } from './pagination.js';

export const CUSTOMER_TYPES = ['INDIVIDUAL', 'BUSINESS'] as const;
export const ENTITY_TYPES = ['SOLE_PROPRIETORSHIP', 'PARTNERSHIP', 'LLC', 'CORPORATION', 'S_CORPORATION', 'NON_PROFIT', 'OTHER'] as const;

export interface BusinessInfo {
  legalName: string;
  doingBusinessAs?: string;
  country?: string;
  registrationNumber?: string;
  incorporatedOn: string;
  entityType?: (typeof ENTITY_TYPES)[number];
  taxId: string;
  countriesOfOperation?: string[];
}

/** What a platform sends to create a customer (public Grid API shapes). */
export interface NewCustomer {
  customerType: CustomerType;
  platformCustomerId?: string;
  region?: string;
  currencies?: string[];
  email?: string;
  phoneNumber?: string;
  fullName?: string;
  birthDate?: string;
  nationality?: string;
  address?: Address;
  businessInfo?: BusinessInfo;
}

export interface Customer extends Omit<NewCustomer, 'platformCustomerId'> {
  id: string;
  platformCustomerId: string;
  /** Individuals: KYC status. */
  kycStatus?: KycStatus;
  /** Businesses: KYB status. */
  kybStatus?: KycStatus;
  createdAt: string;
  updatedAt: string;
}

/** The customer's own fields, kept as JSON in customers.data. */
type CustomerData = Omit<NewCustomer, 'customerType' | 'platformCustomerId'>;

const INDIVIDUAL_ONLY = ['fullName', 'birthDate', 'nationality'] as const;

/**
 * Rules across fields that a schema cannot say per field: a business needs businessInfo and an
 * address, and each type refuses the other's fields. Safe on input the schema has refused.
 */
export function customerRuleErrors(input: Partial<Record<keyof NewCustomer, unknown>>): FieldError[] {
  const errors: FieldError[] = [];
  if (input.customerType === 'BUSINESS') {
    if (input.businessInfo === undefined) errors.push({ field: 'businessInfo', message: 'is required for a BUSINESS customer' });
    if (input.address === undefined) errors.push({ field: 'address', message: 'is required for a BUSINESS customer' });
    for (const f of INDIVIDUAL_ONLY) if (input[f] !== undefined) errors.push({ field: f, message: 'applies to INDIVIDUAL customers only' });
  } else if (input.customerType === 'INDIVIDUAL' && input.businessInfo !== undefined) {
    errors.push({ field: 'businessInfo', message: 'applies to BUSINESS customers only' });
  }
  return errors;
}

export function renderCustomer(row: CustomerRow): Customer {
  const data = JSON.parse(row.data) as CustomerData;
  const status = row.kyc_status as KycStatus;
  return {
    id: row.id,
    platformCustomerId: row.platform_customer_id,
    customerType: row.customer_type,
    ...data,
    ...(row.customer_type === 'BUSINESS' ? { kybStatus: status } : { kycStatus: status }),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

/** A new customer's row; KYC/KYB starts UNVERIFIED and the platform id defaults to a generated one. */
export function newCustomerRow(platformId: string, input: NewCustomer, now: number): CustomerRow {
  const { customerType, platformCustomerId, ...data } = input;
  const id = newId('Customer');
  return {
    id,
    platform_id: platformId,
    customer_type: customerType,
    platform_customer_id: platformCustomerId ?? id.slice('Customer:'.length),
    kyc_status: 'UNVERIFIED',
    data: JSON.stringify(data),
    owner_count: 0,
    created_at: now,
    updated_at: now,
  };
}

export class CustomerService {
  constructor(private readonly store: Store, private readonly cursors: Cursors) {}

  async create(platformId: string, input: NewCustomer): Promise<Customer> {
    const row = newCustomerRow(platformId, input, Date.now());
    await this.store.transaction(async (trx) => {
      await repo.insertCustomer(trx, row);
      await openDefaultAccount(trx, platformId, row.id, row.created_at);
    });
    return renderCustomer(row);
  }

  async get(platformId: string, id: string): Promise<Customer> {
    const row = await repo.findCustomer(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('Customer', id);
    return renderCustomer(row);
  }

  async list(platformId: string, limit: number, cursor: string | undefined, filter: repo.CustomerFilter = {}): Promise<Page<Customer>> {
    const scope = `customers:${platformId}:${filter.customerType ?? ''}:${filter.platformCustomerId ?? ''}`;
    const q = this.cursors.query(scope, limit, cursor);
    const { rows, total } = await repo.listCustomers(this.store.db, platformId, q, filter);
    return this.cursors.page(scope, q, rows, total, renderCustomer);
  }
}
