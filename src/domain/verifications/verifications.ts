import type { PlatformClock } from '../platform/platform-clock.js';
import { lockCustomer } from '../../store/customers-repo.js';
import { ownersOfCustomer, updateOwner } from '../../store/owners-repo.js';
import type { Store } from '../../store/store.js';
import type { CustomerRow } from '../../store/tables/customers.js';
import type { VerificationRow } from '../../store/tables/verifications.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import * as repo from '../../store/verifications-repo.js';
import type { BeneficialOwner, KycStatus } from '../customers/beneficial-owners.js';
import { renderOwner } from '../customers/beneficial-owners.js';
import { changeKycStatus, magicSuffix, ownerStatusAtResolution } from '../customers/kyc.js';
import type { Environment } from '../platform/tokens.js';
import { DeletedError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listScope, type Cursors, type Page } from '../shared/pagination.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';
import type { DocumentsOnFile } from './documents-on-file.js';
import { businessErrors, individualErrors, type VerificationError } from './requirements.js';

export const VERIFICATION_STATUSES = ['RESOLVE_ERRORS', 'PENDING_MANUAL_REVIEW', 'IN_PROGRESS', 'APPROVED', 'REJECTED', 'READY_FOR_VERIFICATION'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** What a platform sees of a verification. */
export interface Verification {
  id: string;
  customerId: string;
  verificationStatus: VerificationStatus;
  errors: VerificationError[];
  createdAt: string;
  updatedAt: string;
}

export interface VerificationListFilter {
  customerId?: string | undefined;
  verificationStatus?: VerificationStatus | undefined;
}

function renderVerification(row: VerificationRow): Verification {
  return {
    id: row.id,
    customerId: row.customer_id,
    verificationStatus: row.status as VerificationStatus,
    errors: JSON.parse(row.errors) as VerificationError[],
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

/** A submission's outcome: the verification's status and errors, and the customer's status after it (unchanged when undefined). */
interface Outcome {
  status: VerificationStatus;
  errors: VerificationError[];
  customerStatus?: KycStatus;
  /** Whether the business's owners resolve now (a terminal KYB decision in the sandbox). */
  resolveOwners?: boolean;
}

const poorQuality = (customerId: string): VerificationError => ({
  resourceId: customerId,
  type: 'POOR_QUALITY_DOCUMENT',
  reason: 'The identity document could not be read well enough; upload a clearer one',
});

export class VerificationService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly cursors: Cursors,
    /** Where the documents on file come from (see documents-on-file.ts). */
    private readonly documentsOnFile: DocumentsOnFile,
  ) {}

  /** Every timestamp this service writes (the sandbox clock replaces it). */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /**
   * Submits the customer: checks its data and documents like production, decides as the sandbox
   * guide says (kyc.ts suffixes), records the verification with its VERIFICATION.* webhook and, when
   * the customer's status changes, its CUSTOMER.KYC_* / KYB_* one. An APPROVED or REJECTED customer: 400.
   */
  async create(platformId: string, environment: Environment, customerId: string, within?: UnitOfWork): Promise<Verification> {
    return this.store.transaction(async (uow) => {
      const customer = await lockCustomer(uow, platformId, customerId);
      if (!customer) throw new NotFoundError('Customer', customerId);
      if (customer.is_deleted === 1) throw new DeletedError(`Customer ${customerId} has been deleted`);
      if (customer.kyc_status === 'APPROVED' || customer.kyc_status === 'REJECTED') {
        const which = customer.customer_type === 'BUSINESS' ? 'kybStatus' : 'kycStatus';
        throw new ValidationError([{ field: 'customerId', message: `is already ${customer.kyc_status} (${which}); a decided customer cannot be submitted again` }]);
      }
      const now = await this.now(platformId, uow);
      const outcome = await this.decide(uow, customer, environment);
      const row: VerificationRow = { id: newId('Verification'), platform_id: platformId, customer_id: customerId, status: outcome.status, errors: JSON.stringify(outcome.errors), created_at: now, updated_at: now };
      await repo.insertVerification(uow, row);
      if (outcome.resolveOwners) await this.resolveOwners(uow, customer, now);
      if (outcome.customerStatus) await changeKycStatus(uow, customer, outcome.customerStatus, now);
      const verification = renderVerification(row);
      await recordWebhookEvent(uow, { platformId, type: `VERIFICATION.${outcome.status}`, fields: { data: verification } }, now);
      return verification;
    }, within);
  }

  private async decide(uow: UnitOfWork, customer: CustomerRow, environment: Environment): Promise<Outcome> {
    const data = JSON.parse(customer.data) as Record<string, unknown>;
    const sandbox = environment === 'sandbox';
    if (customer.customer_type === 'BUSINESS') {
      const suffix = magicSuffix((data.businessInfo as Record<string, unknown> | undefined)?.registrationNumber);
      if (sandbox && suffix === '002') return { status: 'REJECTED', errors: [], customerStatus: 'REJECTED', resolveOwners: true };
      if (sandbox && suffix !== '001' && suffix !== '003') return { status: 'APPROVED', errors: [], customerStatus: 'APPROVED', resolveOwners: true };
      const owners = (await ownersOfCustomer(uow.db, customer.platform_id, customer.id)).map((o) => JSON.parse(o.body) as BeneficialOwner);
      const docs = await this.documentsOnFile(uow, customer.platform_id, [customer.id, ...owners.map((o) => o.id)]);
      const errors = businessErrors(customer.id, data, owners, docs);
      return errors.length > 0 ? { status: 'RESOLVE_ERRORS', errors } : { status: 'IN_PROGRESS', errors: [], customerStatus: 'PENDING' };
    }
    const docs = await this.documentsOnFile(uow, customer.platform_id, [customer.id]);
    const errors = individualErrors(customer.id, data, docs.get(customer.id) ?? new Set());
    if (errors.length > 0) return { status: 'RESOLVE_ERRORS', errors };
    if (!sandbox) return { status: 'IN_PROGRESS', errors: [], customerStatus: 'PENDING' };
    switch (magicSuffix(data.fullName)) {
      case '001':
        return { status: 'PENDING_MANUAL_REVIEW', errors: [], customerStatus: 'PENDING' };
      case '002':
        return { status: 'REJECTED', errors: [], customerStatus: 'REJECTED' };
      case '003':
        return { status: 'RESOLVE_ERRORS', errors: [poorQuality(customer.id)] };
      default:
        return { status: 'APPROVED', errors: [], customerStatus: 'APPROVED' };
    }
  }

  /** Each owner's kycStatus by the suffix of its lastName, when its business is decided in the sandbox. */
  private async resolveOwners(uow: UnitOfWork, customer: CustomerRow, now: number): Promise<void> {
    for (const row of await ownersOfCustomer(uow.db, customer.platform_id, customer.id)) {
      const owner = JSON.parse(row.body) as BeneficialOwner;
      const body = renderOwner({ ...owner, kycStatus: ownerStatusAtResolution(owner.personalInfo.lastName), updatedAt: new Date(now).toISOString() });
      await updateOwner(uow.db, row, body, now);
    }
  }

  async get(platformId: string, id: string): Promise<Verification> {
    const row = await repo.findVerification(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('Verification', id);
    return renderVerification(row);
  }

  /** Oldest first (ties by id); a cursor is bound to the platform and the filters. */
  async list(platformId: string, limit: number, cursor: string | undefined, filter: VerificationListFilter = {}): Promise<Page<Verification>> {
    const scope = listScope('verifications', platformId, { customerId: filter.customerId, verificationStatus: filter.verificationStatus });
    const q = this.cursors.query(scope, limit, cursor);
    const { rows, total } = await repo.listVerifications(this.store.db, platformId, q, { customerId: filter.customerId, status: filter.verificationStatus });
    return this.cursors.page(scope, q, rows, total, renderVerification);
  }
}
