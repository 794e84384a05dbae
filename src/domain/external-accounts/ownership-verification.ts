import type { PlatformClock } from '../platform/platform-clock.js';
import * as repo from '../../store/external-accounts-repo.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { InvalidStateError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Environment } from '../platform/tokens.js';
import type { AccountInfo } from './account-types.js';
import { assertChallengeable, changeStatus, EXTERNAL_ACCOUNT_REVIEW_JOB, type ExternalAccountReviewJob } from './external-account-lifecycle.js';
import type { ExternalAccountScope } from './external-accounts.js';
import type { ExternalAccount } from './render.js';

export const OWNERSHIP_METHODS = ['WALLET_SIGNATURE', 'LIVENESS'] as const;
export type OwnershipMethod = (typeof OWNERSHIP_METHODS)[number];

/** How long a challenge can be answered. */
export const CHALLENGE_TTL_MS = 15 * 60_000;

/** The signature the sandbox refuses (any other is taken as valid): how a test drives the failure path. */
export const SANDBOX_INVALID_SIGNATURE = 'invalid';

/** Where the sandbox's LIVENESS challenges point: a reserved domain, nothing answers there. */
const LIVENESS_BASE = 'https://liveness.sandbox.invalid/verify/';

export type OwnershipChallenge =
  | { method: 'WALLET_SIGNATURE'; messageToSign: string; expiresAt: string }
  | { method: 'LIVENESS'; verificationLink: string; token: string; expiresAt: string };

interface StoredChallenge {
  id: string;
  method: OwnershipMethod;
  messageToSign?: string;
  expiresAt: number;
}

const ownerOf = (scope: ExternalAccountScope): repo.ExternalAccountOwner => (scope === 'platform' ? 'platform' : 'any-customer');

/** Ownership verification of FIRST_PARTY self-custody wallets: a challenge, then a signature (or a liveness flow the worker completes). */
export class OwnershipVerification {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly reviewDelayMs: number,
  ) {}

  /** The one clock of this service's writes. */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /**
   * Issues a new challenge, abandoning any outstanding one; an UNVERIFIED account returns to
   * PENDING_OWNERSHIP_VERIFICATION. A sandbox LIVENESS challenge completes by itself after the review delay.
   */
  async challenge(platformId: string, environment: Environment, scope: ExternalAccountScope, id: string, method: OwnershipMethod, within?: UnitOfWork): Promise<OwnershipChallenge> {
    return this.store.transaction(async (uow) => {
      const row = await repo.lockExternalAccount(uow, platformId, id, ownerOf(scope));
      if (!row) throw new NotFoundError('ExternalAccount', id);
      assertChallengeable(row);
      const now = await this.now(platformId, uow);
      const stored: StoredChallenge = { id: newId('OwnershipChallenge'), method, expiresAt: now + CHALLENGE_TTL_MS };
      const expiresAt = new Date(stored.expiresAt).toISOString();
      if (method === 'WALLET_SIGNATURE') {
        const address = (JSON.parse(row.account_info) as AccountInfo).address as string;
        stored.messageToSign = `Verify ownership of ${address} for external account ${row.id}. Challenge ${stored.id.slice(stored.id.indexOf(':') + 1)}, valid until ${expiresAt}.`;
      }
      await changeStatus(uow, row, { status: 'PENDING_OWNERSHIP_VERIFICATION', ownership_challenge: JSON.stringify(stored) }, now);
      if (method === 'LIVENESS' && environment === 'sandbox') {
        const payload: ExternalAccountReviewJob = { platformId, externalAccountId: row.id, challengeId: stored.id };
        // Due on the platform's clock (an advance pulls it forward); runAt is real time.
        await enqueueJob(uow, { id: newId('Job'), kind: EXTERNAL_ACCOUNT_REVIEW_JOB, payload, queueKey: row.id, runAt: Date.now() + this.reviewDelayMs, platformId, platformDueAt: now + this.reviewDelayMs }, now);
      }
      const token = stored.id.slice(stored.id.indexOf(':') + 1);
      return method === 'WALLET_SIGNATURE'
        ? { method, messageToSign: stored.messageToSign!, expiresAt }
        : { method, verificationLink: `${LIVENESS_BASE}${token}`, token, expiresAt };
    }, within);
  }

  /**
   * Completes the outstanding WALLET_SIGNATURE challenge (409 without one): ACTIVE. An expired
   * challenge or the sandbox's invalid signature moves the account to UNVERIFIED, committed, and
   * then answers 400 on field signature.
   */
  async verify(platformId: string, scope: ExternalAccountScope, id: string, signature: string, within?: UnitOfWork): Promise<ExternalAccount> {
    const outcome = await this.store.transaction(async (uow) => {
      const row = await repo.lockExternalAccount(uow, platformId, id, ownerOf(scope));
      if (!row) throw new NotFoundError('ExternalAccount', id);
      const challenge = row.ownership_challenge === null ? undefined : (JSON.parse(row.ownership_challenge) as StoredChallenge);
      if (row.status !== 'PENDING_OWNERSHIP_VERIFICATION' || challenge?.method !== 'WALLET_SIGNATURE') {
        throw new InvalidStateError('No WALLET_SIGNATURE challenge is outstanding for this external account; start one with challenge', row.status);
      }
      const now = await this.now(platformId, uow);
      const refusal = now > challenge.expiresAt ? 'answers a challenge that has expired; start a new challenge' : signature.trim().toLowerCase() === SANDBOX_INVALID_SIGNATURE ? 'is not a valid signature of messageToSign' : undefined;
      const account = await changeStatus(uow, row, { status: refusal === undefined ? 'ACTIVE' : 'UNVERIFIED', ownership_challenge: null }, now);
      return { account, refusal };
    }, within);
    if (outcome.refusal !== undefined) throw new ValidationError([{ field: 'signature', message: outcome.refusal }]);
    return outcome.account;
  }
}
