import type { PlatformClock } from '../platform/platform-clock.js';
import * as repo from '../../store/external-accounts-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import type { Store } from '../../store/store.js';
import type { ExternalAccountRow } from '../../store/tables/external-accounts.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { ConflictError, lookupableId, NotFoundError, ValidationError, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listScope, type Cursors, type Page } from '../shared/pagination.js';
import type { Environment } from '../platform/tokens.js';
import { currencyOf, primaryIdentifier, type AccountInfo } from './account-types.js';
import { verifyBeneficiary } from './beneficiary-verification.js';
import { EXTERNAL_ACCOUNT_REVIEW_JOB, initialStatus, type ExternalAccountReviewJob } from './external-account-lifecycle.js';
import { identifierErrors } from './identifiers/account-identifiers.js';
import { renderExternalAccount, type ExternalAccount } from './render.js';

export type { ExternalAccount } from './render.js';

/** Which family of paths asks: /customers/external-accounts reaches customers' accounts, /platform/external-accounts the platform's. */
export type ExternalAccountScope = 'customers' | 'platform';

export interface CreateExternalAccountInput {
  /** Absent: the account is the platform's own. */
  customerId?: string | undefined;
  currency: string;
  platformAccountId?: string | undefined;
  ownershipType?: string | undefined;
  defaultUmaDepositAccount?: boolean | undefined;
  accountInfo: AccountInfo;
}

export interface ExternalAccountListFilters {
  customerId?: string | undefined;
  currency?: string | undefined;
}

const ownerOf = (scope: ExternalAccountScope): repo.ExternalAccountOwner => (scope === 'platform' ? 'platform' : 'any-customer');

/** External accounts of customers and of the platform: creation with its checks, reads, deletion. */
export class ExternalAccountService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly cursors: Cursors,
    private readonly reviewDelayMs: number,
  ) {}

  /** The one clock of this service's writes. */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /**
   * Creates an account after checking what the schema cannot: the customer (of this platform, not
   * deleted), the currency of a bank account type, every identifier's checksum (all in one 400),
   * no live duplicate for the owner (409), then the name verification (the sandbox's suffixes; 105 a 400).
   */
  async create(platformId: string, environment: Environment, input: CreateExternalAccountInput, within?: UnitOfWork): Promise<ExternalAccount> {
    return this.store.transaction(async (uow) => {
      const errors = await this.referenceErrors(platformId, input, uow);
      if (errors.length > 0) throw new ValidationError(errors);
      const info = input.accountInfo;
      const owner: repo.ExternalAccountOwner = input.customerId === undefined ? 'platform' : { customerId: input.customerId };
      const identifier = primaryIdentifier(info) ?? null;
      await repo.lockOwner(uow, platformId, input.customerId);
      if (identifier !== null && (await repo.findDuplicate(uow.db, platformId, owner, info.accountType, identifier))) {
        throw new ConflictError('externalAccount', `An external account of type ${info.accountType} with this identifier already exists for this owner`);
      }
      const verification = verifyBeneficiary(info, environment);
      const now = await this.now(platformId, uow);
      const isDefault = input.customerId !== undefined && input.defaultUmaDepositAccount === true;
      if (isDefault) await repo.clearDefaultUmaDeposit(uow.db, platformId, input.customerId!, now);
      const row: ExternalAccountRow = {
        id: newId('ExternalAccount'),
        platform_id: platformId,
        customer_id: input.customerId ?? null,
        status: initialStatus(info, input.ownershipType, verification),
        currency: input.currency,
        account_type: info.accountType,
        identifier,
        account_info: JSON.stringify(info),
        platform_account_id: input.platformAccountId ?? null,
        ownership_type: input.ownershipType ?? null,
        default_uma_deposit_account: isDefault ? 1 : 0,
        beneficiary_verification_status: verification?.status ?? null,
        beneficiary_verified_name: verification?.verifiedName ?? null,
        ownership_challenge: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await repo.insertExternalAccount(uow, row);
      if (row.status === 'PENDING' && environment === 'sandbox') {
        const payload: ExternalAccountReviewJob = { platformId, externalAccountId: row.id };
        // Due on the platform's clock (an advance pulls it forward); runAt is real time.
        await enqueueJob(uow, { id: newId('Job'), kind: EXTERNAL_ACCOUNT_REVIEW_JOB, payload, queueKey: row.id, runAt: Date.now() + this.reviewDelayMs, platformId, platformDueAt: now + this.reviewDelayMs }, now);
      }
      return renderExternalAccount(row);
    }, within);
  }

  /**
   * The checks beyond the schema, on any body (one that failed the schema too, to report every
   * invalid field in one 400): the customer, the currency of a bank account type, the identifiers.
   */
  async referenceErrors(platformId: string, body: { customerId?: unknown; currency?: unknown; accountInfo?: unknown }, within?: UnitOfWork): Promise<FieldError[]> {
    const { db } = within ?? this.store;
    const errors: FieldError[] = [];
    if (lookupableId(body.customerId)) {
      const customer = await findCustomer(db, platformId, body.customerId);
      if (!customer || customer.is_deleted === 1) errors.push({ field: 'customerId', message: 'is not a customer of this platform' });
    }
    const info = body.accountInfo as Partial<AccountInfo> | undefined;
    const expected = typeof info?.accountType === 'string' ? currencyOf(info.accountType) : undefined;
    if (expected !== undefined && typeof body.currency === 'string' && body.currency !== expected) {
      errors.push({ field: 'currency', constraint: { enum: [expected] }, message: `must be ${expected} for accountType ${info!.accountType}` });
    }
    return [...errors, ...identifierErrors(info)];
  }

  async get(platformId: string, scope: ExternalAccountScope, id: string): Promise<ExternalAccount> {
    const row = await repo.findExternalAccount(this.store.db, platformId, id, ownerOf(scope));
    if (!row) throw new NotFoundError('ExternalAccount', id);
    return renderExternalAccount(row);
  }

  /** Oldest first, keyset-paginated; an unknown or foreign customerId matches nothing. */
  async list(platformId: string, scope: ExternalAccountScope, limit: number, cursor: string | undefined, filters: ExternalAccountListFilters): Promise<Page<ExternalAccount>> {
    const listName = `external-accounts:${scope}`;
    const sc = listScope(listName, platformId, { ...filters });
    const q = this.cursors.query(sc, limit, cursor, 'asc');
    const owner = scope === 'platform' ? 'platform' : filters.customerId === undefined ? 'any-customer' : { customerId: filters.customerId };
    const { rows, total } = await repo.listExternalAccounts(this.store.db, platformId, owner, q, { currency: filters.currency });
    return this.cursors.page(sc, q, rows, total, renderExternalAccount);
  }

  /** Deletes an account: it reads as unknown from then on (a second delete is a 404). */
  async delete(platformId: string, scope: ExternalAccountScope, id: string, within?: UnitOfWork): Promise<void> {
    await this.store.transaction(async (uow) => {
      const row = await repo.lockExternalAccount(uow, platformId, id, ownerOf(scope));
      if (!row) throw new NotFoundError('ExternalAccount', id);
      const now = await this.now(platformId, uow);
      await repo.updateExternalAccount(uow.db, id, { deleted_at: now, updated_at: now, ownership_challenge: null });
    }, within);
  }
}
