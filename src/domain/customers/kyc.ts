import * as repo from '../../store/customers-repo.js';
import type { Store } from '../../store/store.js';
import type { CustomerRow } from '../../store/tables/customers.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import type { KycStatus } from './beneficial-owners.js';
import { renderCustomer, type Customer } from './render.js';
import { DeletedError, NotFoundError } from '../shared/errors.js';
import type { Environment } from '../platform/tokens.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';

/** The sandbox's magic value: the last three characters of a name or number (Grid's sandbox guide). */
export const magicSuffix = (value: unknown): string => (typeof value === 'string' ? value.slice(-3) : '');

/**
 * An individual's kycStatus at creation. Sandbox: by the suffix of fullName (001 PENDING, 002
 * REJECTED, 003 UNVERIFIED, any other APPROVED). Production: UNVERIFIED until verified.
 */
export function kycStatusAtCreation(environment: Environment, customerType: string, fullName: unknown): KycStatus {
  if (environment !== 'sandbox' || customerType !== 'INDIVIDUAL') return 'UNVERIFIED';
  const suffix = magicSuffix(fullName);
  return suffix === '001' ? 'PENDING' : suffix === '002' ? 'REJECTED' : suffix === '003' ? 'UNVERIFIED' : 'APPROVED';
}

/** A beneficial owner's kycStatus when its business resolves terminally in the sandbox: by the suffix of its lastName. */
export function ownerStatusAtResolution(lastName: unknown): KycStatus {
  const suffix = magicSuffix(lastName);
  return suffix === '001' ? 'PENDING' : suffix === '002' ? 'REJECTED' : 'APPROVED';
}

/**
 * The webhook type a KYC/KYB status sends: `CUSTOMER.KYC_<status>` for an individual,
 * `CUSTOMER.KYB_<status>` for a business. The interface names types for PENDING, APPROVED and
 * REJECTED only; UNVERIFIED and HOLD send none.
 */
export function kycWebhookType(row: Pick<CustomerRow, 'customer_type'>, status: string): string | undefined {
  if (status !== 'PENDING' && status !== 'APPROVED' && status !== 'REJECTED') return undefined;
  return `CUSTOMER.${row.customer_type === 'BUSINESS' ? 'KYB' : 'KYC'}_${status}`;
}

/** Records the customer's status webhook (if its status has one), in the caller's unit of work. */
export async function recordKycWebhook(uow: UnitOfWork, row: CustomerRow, now: number): Promise<Customer> {
  const customer = renderCustomer(row);
  const type = kycWebhookType(row, row.kyc_status);
  if (type) await recordWebhookEvent(uow, { platformId: row.platform_id, type, fields: { data: customer } }, now);
  return customer;
}

/** Sets the status and records its webhook (if the interface has one), in the caller's unit of work. */
export async function changeKycStatus(uow: UnitOfWork, row: CustomerRow, status: KycStatus, now: number): Promise<Customer> {
  const changed = (await repo.setKycStatus(uow.db, row.platform_id, row.id, status, now))!;
  return recordKycWebhook(uow, changed, now);
}

/** The sandbox's extension: a platform forces any KYC/KYB status. */
export class KycService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  /** Sets any status and sends its webhook (each call sends one, even when the status does not change). */
  async setStatus(platformId: string, customerId: string, status: KycStatus, within?: UnitOfWork): Promise<Customer> {
    return this.store.transaction(async (uow) => {
      const row = await repo.lockCustomer(uow, platformId, customerId);
      if (!row) throw new NotFoundError('Customer', customerId);
      if (row.is_deleted === 1) throw new DeletedError(`Customer ${customerId} has been deleted`);
      return changeKycStatus(uow, row, status, await this.clock.now(platformId, uow));
    }, within);
  }

}
