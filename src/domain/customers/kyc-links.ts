import { randomUUID } from 'node:crypto';
import * as repo from '../../store/customers-repo.js';
import { findKycLinkPlatform, findOpenKycLink, insertKycLink, useKycLink } from '../../store/kyc-links-repo.js';
import type { Store } from '../../store/store.js';
import type { CustomerRow } from '../../store/tables/customers.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import type { Environment } from '../platform/tokens.js';
import { DeletedError, InvalidStateError, NotFoundError, NotImplementedError, ValidationError, type FieldError } from '../shared/errors.js';
import { signedToken, verifiedTokenId } from '../shared/signed-tokens.js';
import { unverifiedContactChannels } from './contact-verification.js';
import { HOSTED_KYB_ANSWERS, hostedFlow, type HostedFlow } from './hosted-kyc-outcomes.js';
import { changeKycStatus } from './kyc.js';

export const DEFAULT_KYC_LINK_TTL_MS = 24 * 60 * 60_000;
/** The provider the sandbox names (the interface's only KycProvider). */
export const SANDBOX_KYC_PROVIDER = 'SUMSUB';
const PURPOSE = 'kyc-link';
const MAX_ANSWER = 200;

export interface KycLinkGrant {
  /** The bearer credential of the hosted page. */
  token: string;
  expiresAt: string;
  provider: typeof SANDBOX_KYC_PROVIDER;
}

/** What the hosted page shows. */
export interface KycLinkPage extends HostedFlow {
  customerId: string;
  customerType: string;
  status: string;
}

export interface KycLinkFinished {
  customerId: string;
  status: string;
  redirectUri: string | null;
}

/** Hosted KYC/KYB links: single-use, expiring, signed; finishing one moves the status as the API path does, with the same webhooks. */
export class KycLinks {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    /** Signs the tokens (derived from a server key in the settings table). */
    private readonly key: Buffer,
    private readonly ttlMs = DEFAULT_KYC_LINK_TTL_MS,
  ) {}

  /** Every timestamp this service writes or compares: the platform's clock (a link expires on it). */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /** Production has no hosted provider here: 501, as card reveals answer. */
  async create(platformId: string, environment: Environment, requestedBy: string, customerId: string, redirectUri: string | undefined, within?: UnitOfWork): Promise<KycLinkGrant> {
    if (environment === 'production') throw new NotImplementedError('createCustomerKycLink (POST /customers/{customerId}/kyc-link) needs a KYC provider; production environments here have none');
    return this.store.transaction(async (uow) => {
      const row = await repo.findCustomer(uow.db, platformId, customerId);
      if (!row) throw new NotFoundError('Customer', customerId);
      if (row.is_deleted === 1) throw new DeletedError(`Customer ${customerId} has been deleted`);
      const unverified = unverifiedContactChannels(row);
      if (unverified.length > 0) throw new InvalidStateError(`Verify the customer's ${unverified.join(' and ')} first (POST /customers/{customerId}/verify-${unverified[0]})`, 'CONTACT_VERIFICATION_PENDING');
      const now = await this.now(platformId, uow);
      const id = randomUUID();
      const expiresAt = now + this.ttlMs;
      await insertKycLink(uow, { id, platform_id: platformId, customer_id: customerId, redirect_uri: redirectUri ?? null, requested_by: requestedBy, created_at: now, expires_at: expiresAt, used_at: null });
      return { token: signedToken(this.key, PURPOSE, id), expiresAt: new Date(expiresAt).toISOString(), provider: SANDBOX_KYC_PROVIDER };
    }, within);
  }

  /** The page behind an open link (not used up by looking); undefined for a forged, unknown, used or expired one (all alike). */
  async page(token: string): Promise<KycLinkPage | undefined> {
    const id = verifiedTokenId(this.key, PURPOSE, token);
    const platformId = id && (await findKycLinkPlatform(this.store.db, id));
    if (!id || !platformId) return undefined;
    const link = await findOpenKycLink(this.store.db, id, await this.now(platformId));
    const row = link && (await repo.findCustomer(this.store.db, link.platform_id, link.customer_id));
    return row && row.is_deleted === 0 ? { customerId: row.id, customerType: row.customer_type, status: row.kyc_status, ...hostedFlow(row) } : undefined;
  }

  /**
   * Uses the link up with the outcome chosen and the answers asked for; undefined when the link is
   * not open. An outcome the page does not offer, or a missing answer, is a 400 that leaves the link open (the use rolls back with it).
   */
  async finish(token: string, outcome: unknown, answers: Record<string, unknown>): Promise<KycLinkFinished | undefined> {
    const id = verifiedTokenId(this.key, PURPOSE, token);
    if (!id) return undefined;
    return this.store.transaction(async (uow) => {
      const platformId = await findKycLinkPlatform(uow.db, id);
      if (!platformId) return undefined;
      const now = await this.now(platformId, uow);
      // Used up first: of two submissions only one gets the link; a refusal below rolls the use back.
      const link = await useKycLink(uow.db, id, now);
      let row = link && (await repo.lockCustomer(uow, link.platform_id, link.customer_id));
      if (!link || !row || row.is_deleted === 1) return undefined;
      const flow = hostedFlow(row);
      const chosen = flow.outcomes.find((o) => o.status === outcome);
      const errors: FieldError[] = chosen ? [] : [{ field: 'outcome', message: 'must be one of the outcomes the page offers', constraint: { enum: flow.outcomes.map((o) => o.status) } }];
      for (const ask of flow.asks) {
        const value = answers[ask.name];
        if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_ANSWER) errors.push({ field: ask.name, message: `is required (1 to ${MAX_ANSWER} characters)` });
      }
      if (errors.length > 0) throw new ValidationError(errors);
      if (flow.asks.length > 0) row = await this.keepAnswers(uow, row, Object.fromEntries(flow.asks.map((a) => [a.name, (answers[a.name] as string).trim()])), now);
      await changeKycStatus(uow, row, chosen!.status, now);
      return { customerId: row.id, status: chosen!.status, redirectUri: link.redirect_uri };
    });
  }

  /**
   * What the person gave on the page is kept on the customer: an individual's name becomes its
   * fullName, as a PATCH would set it; a business's answers its hostedKybAnswers.
   */
  private async keepAnswers(uow: UnitOfWork, row: CustomerRow, answers: Record<string, string>, now: number): Promise<CustomerRow> {
    const { fullName, ...business } = answers;
    const data = JSON.parse(row.data) as Record<string, unknown>;
    if (fullName !== undefined) data.fullName = fullName;
    if (Object.keys(business).length > 0) data[HOSTED_KYB_ANSWERS] = business;
    const next = { data: JSON.stringify(data), uma_address: row.uma_address, region: row.region, currency_list: row.currency_list, updated_at: now };
    await repo.updateCustomer(uow.db, row.platform_id, row.id, next);
    return { ...row, ...next };
  }
}
