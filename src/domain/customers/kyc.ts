import * as repo from '../../store/customers-repo.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import type { Executor, Store } from '../../store/store.js';
import type { CustomerRow } from '../../store/tables/customers.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { findWebhookConfig } from '../../store/webhooks-repo.js';
import type { KycStatus } from './beneficial-owners.js';
import { renderCustomer, type Customer } from './render.js';
import { DeletedError, NotFoundError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Environment } from '../platform/tokens.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';

/** The job that approves a new sandbox customer's KYC/KYB once its delay has passed. */
export const KYC_AUTO_APPROVAL_JOB = 'customer.kyc_auto_approval';

export interface KycAutoApprovalJob {
  platformId: string;
  customerId: string;
}

/**
 * The webhook type a KYC/KYB status change sends: `CUSTOMER.KYC_<status>` for an individual,
 * `CUSTOMER.KYB_<status>` for a business. The interface names types for PENDING, APPROVED and
 * REJECTED only; UNVERIFIED and HOLD send none.
 */
export function kycWebhookType(row: Pick<CustomerRow, 'customer_type'>, status: KycStatus): string | undefined {
  if (status !== 'PENDING' && status !== 'APPROVED' && status !== 'REJECTED') return undefined;
  return `CUSTOMER.${row.customer_type === 'BUSINESS' ? 'KYB' : 'KYC'}_${status}`;
}

/** Whether the platform (this environment's scope) has sandbox KYC auto-approval on; on unless turned off. */
async function autoApprovalOn(db: Executor, platformId: string): Promise<boolean> {
  return ((await findWebhookConfig(db, platformId))?.sandbox_kyc_auto_approval ?? 1) === 1;
}

/** Sets the status and records its webhook (if the interface has one), in the caller's unit of work. */
async function changeStatus(uow: UnitOfWork, row: CustomerRow, status: KycStatus, now: number): Promise<Customer> {
  const changed = (await repo.setKycStatus(uow.db, row.platform_id, row.id, status, now))!;
  const customer = renderCustomer(changed);
  const type = kycWebhookType(changed, status);
  if (type) await recordWebhookEvent(uow, { platformId: row.platform_id, type, fields: { data: customer } }, now);
  return customer;
}

/**
 * In the sandbox, inside the unit of work that creates the customer: queues its KYC/KYB approval
 * `delayMs` later, unless the platform has turned auto-approval off. Production: nothing.
 */
export async function queueKycAutoApproval(uow: UnitOfWork, environment: Environment, row: CustomerRow, delayMs: number): Promise<void> {
  if (environment !== 'sandbox' || !(await autoApprovalOn(uow.db, row.platform_id))) return;
  const payload: KycAutoApprovalJob = { platformId: row.platform_id, customerId: row.id };
  await enqueueJob(uow, { id: newId('Job'), kind: KYC_AUTO_APPROVAL_JOB, payload, runAt: Date.now() + delayMs, platformId: row.platform_id, platformDueAt: row.created_at + delayMs }, row.created_at);
}

/**
 * The auto-approval, in the worker's commit: APPROVED with its webhook if the customer is still
 * UNVERIFIED (a status set meanwhile through the sandbox endpoint wins), not deleted, and the
 * platform has not turned auto-approval off since.
 */
export async function landKycAutoApproval(uow: UnitOfWork, job: KycAutoApprovalJob, now = Date.now()): Promise<void> {
  const row = await repo.lockCustomer(uow, job.platformId, job.customerId);
  if (!row || row.kyc_status !== 'UNVERIFIED' || row.is_deleted === 1) return;
  if (!(await autoApprovalOn(uow.db, job.platformId))) return;
  await changeStatus(uow, row, 'APPROVED', now);
}

/** The sandbox's KYC/KYB decisions, made on request. */
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
      return changeStatus(uow, row, status, await this.clock.now(platformId, uow));
    }, within);
  }
}
