import * as repo from '../../store/external-accounts-repo.js';
import type { ExternalAccountRow } from '../../store/tables/external-accounts.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { InvalidStateError } from '../shared/errors.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';
import { isWallet, type AccountInfo } from './account-types.js';
import type { BeneficiaryVerification } from './beneficiary-verification.js';
import { renderExternalAccount, type ExternalAccount } from './render.js';

import type { ExternalAccountStatus } from './statuses.js';

export const EXTERNAL_ACCOUNT_STATUS_UPDATED_EVENT = 'EXTERNAL_ACCOUNT.STATUS_UPDATED';

/** The job that ends what the sandbox leaves in progress: a PENDING name verification, a LIVENESS challenge. */
export const EXTERNAL_ACCOUNT_REVIEW_JOB = 'external_account.review';

export interface ExternalAccountReviewJob {
  platformId: string;
  externalAccountId: string;
  /** The LIVENESS challenge the job completes; absent: the PENDING name verification. */
  challengeId?: string;
}

/** A self-custody wallet its owner declared their own: the one kind of account ownership verification applies to. */
export function needsOwnershipVerification(info: AccountInfo, ownershipType: string | undefined): boolean {
  return isWallet(info.accountType) && ownershipType === 'FIRST_PARTY' && info.vaspName === undefined;
}

/** A new account's status: PENDING_OWNERSHIP_VERIFICATION for such a wallet, PENDING while its name verification is, else ACTIVE. */
export function initialStatus(info: AccountInfo, ownershipType: string | undefined, verification: BeneficiaryVerification | undefined): ExternalAccountStatus {
  if (needsOwnershipVerification(info, ownershipType)) return 'PENDING_OWNERSHIP_VERIFICATION';
  return verification?.status === 'PENDING' ? 'PENDING' : 'ACTIVE';
}

/** A challenge can start on a FIRST_PARTY self-custody wallet awaiting verification or whose last attempt failed (else 409). */
export function assertChallengeable(row: ExternalAccountRow): void {
  const info = JSON.parse(row.account_info) as AccountInfo;
  if (!needsOwnershipVerification(info, row.ownership_type ?? undefined)) {
    throw new InvalidStateError('Ownership verification applies only to FIRST_PARTY self-custody crypto wallets', row.status);
  }
  if (row.status !== 'PENDING_OWNERSHIP_VERIFICATION' && row.status !== 'UNVERIFIED') {
    throw new InvalidStateError(`Ownership of this account cannot be verified in status ${row.status}`, row.status);
  }
}

/** Writes a status change with its EXTERNAL_ACCOUNT.STATUS_UPDATED event, in the caller's unit of work. */
export async function changeStatus(
  uow: UnitOfWork,
  row: ExternalAccountRow,
  change: Partial<Pick<ExternalAccountRow, 'status' | 'beneficiary_verification_status' | 'beneficiary_verified_name' | 'ownership_challenge'>>,
  now: number,
): Promise<ExternalAccount> {
  const after: ExternalAccountRow = { ...row, ...change, updated_at: now };
  await repo.updateExternalAccount(uow.db, row.id, { ...change, updated_at: now });
  const account = renderExternalAccount(after);
  if (after.status !== row.status) {
    await recordWebhookEvent(uow, { platformId: row.platform_id, type: EXTERNAL_ACCOUNT_STATUS_UPDATED_EVENT, fields: { data: account } }, now);
  }
  return account;
}

/**
 * The review job, in the worker's commit: a PENDING name verification ends MATCHED (ACTIVE); a
 * LIVENESS challenge still outstanding ends verified (ACTIVE). A deleted account, or one changed
 * meanwhile (a new challenge replaced this one), is left as it is. `now` is the platform's clock.
 */
export async function landExternalAccountReview(uow: UnitOfWork, job: ExternalAccountReviewJob, now: number): Promise<void> {
  const row = await repo.lockExternalAccount(uow, job.platformId, job.externalAccountId, 'anyone');
  if (!row) return;
  if (job.challengeId === undefined) {
    if (row.status !== 'PENDING' || row.beneficiary_verification_status !== 'PENDING') return;
    const name = (JSON.parse(row.account_info) as { beneficiary?: { fullName?: string; legalName?: string } }).beneficiary;
    await changeStatus(uow, row, { status: 'ACTIVE', beneficiary_verification_status: 'MATCHED', beneficiary_verified_name: name?.fullName ?? name?.legalName ?? null }, now);
    return;
  }
  const challenge = row.ownership_challenge === null ? undefined : (JSON.parse(row.ownership_challenge) as { id: string });
  if (row.status !== 'PENDING_OWNERSHIP_VERIFICATION' || challenge?.id !== job.challengeId) return;
  await changeStatus(uow, row, { status: 'ACTIVE', ownership_challenge: null }, now);
}
