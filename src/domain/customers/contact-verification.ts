import type { PlatformClock } from '../platform/platform-clock.js';
import * as challenges from '../../store/contact-challenges-repo.js';
import * as repo from '../../store/customers-repo.js';
import type { Store } from '../../store/store.js';
import type { CustomerRow } from '../../store/tables/customers.js';
import type { ContactChannel } from '../../store/tables/onboarding-links.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import type { Environment } from '../platform/tokens.js';
import { DeletedError, InvalidStateError, NotFoundError, NotImplementedError } from '../shared/errors.js';
import { renderCustomer, type Customer } from './render.js';

export type { ContactChannel } from '../../store/tables/onboarding-links.js';
export type ContactStatus = 'PENDING' | 'VERIFIED';

/** Grid's sandbox sends nothing: the code is always this one. */
export const SANDBOX_CONTACT_CODE = '123456';
/** Wrong codes a challenge takes before it is void (a new send issues a new one). */
export const MAX_WRONG_CONTACT_CODES = 5;
export const DEFAULT_CONTACT_CODE_TTL_MS = 10 * 60_000;

/** The regions whose customers verify email and phone before KYC: the European Economic Area (the guide's "e.g. EU"). */
const CONTACT_VERIFIED_REGIONS = new Set(
  'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO'.split(' '),
);

const FIELD_OF: Record<ContactChannel, string> = { email: 'email', phone: 'phoneNumber' };

/** A new customer's `contactVerification`: both channels PENDING in the regions that require it, else none. */
export function contactVerificationAtCreation(region: unknown): Record<ContactChannel, ContactStatus> | undefined {
  return typeof region === 'string' && CONTACT_VERIFIED_REGIONS.has(region) ? { email: 'PENDING', phone: 'PENDING' } : undefined;
}

/** A changed email or phone number must be verified again: its channel goes back to PENDING. */
export function contactVerificationAfterChange(current: Record<string, unknown>, changes: Record<string, unknown>): Record<string, ContactStatus> | undefined {
  const cv = current.contactVerification as Partial<Record<ContactChannel, ContactStatus>> | undefined;
  if (!cv) return undefined;
  const next = { ...cv };
  for (const channel of ['email', 'phone'] as const) {
    const field = FIELD_OF[channel];
    if (next[channel] !== undefined && changes[field] !== undefined && changes[field] !== current[field]) next[channel] = 'PENDING';
  }
  return next;
}

/** The customer's contact channels that are required and not yet VERIFIED. */
export function unverifiedContactChannels(row: CustomerRow): ContactChannel[] {
  const cv = contactVerificationOf(row);
  return (['email', 'phone'] as const).filter((c) => cv?.[c] !== undefined && cv[c] !== 'VERIFIED');
}

/** Why a code was refused: none sent, expired, void after too many wrong codes, or wrong (with the tries left). */
export type ContactCodeRefusal = { reason: 'NOT_SENT' | 'EXPIRED' | 'LOCKED' } | { reason: 'WRONG'; attemptsLeft: number };


/** The send-then-confirm pairs that verify a customer's email and phone (POST /customers/{id}/verify-email, ...). */
export class ContactVerificationService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly ttlMs = DEFAULT_CONTACT_CODE_TTL_MS,
  ) {}

  /** Every timestamp this service writes or compares (the sandbox clock replaces it). */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /** Issues a new code (the sandbox's fixed one), replacing any outstanding code of the channel. */
  async send(platformId: string, environment: Environment, customerId: string, channel: ContactChannel, within?: UnitOfWork): Promise<void> {
    if (environment === 'production') throw new NotImplementedError(`Sending a ${channel} verification code needs a delivery provider; production environments here have none`);
    await this.store.transaction(async (uow) => {
      const row = await this.pending(uow, platformId, customerId, channel);
      if (JSON.parse(row.data)[FIELD_OF[channel]] === undefined) throw new InvalidStateError(`Customer ${customerId} has no ${FIELD_OF[channel]} to send a code to; set it with PATCH /customers/{customerId}`, 'PENDING');
      const now = await this.now(platformId, uow);
      await challenges.replaceContactChallenge(uow.db, { platform_id: platformId, customer_id: customerId, channel, code: SANDBOX_CONTACT_CODE, failed_attempts: 0, created_at: now, expires_at: now + this.ttlMs });
    }, within);
  }

  /** The customer with the channel VERIFIED, or why the code was refused (a wrong code is counted: the caller commits it). */
  async confirm(platformId: string, customerId: string, channel: ContactChannel, code: string, within?: UnitOfWork): Promise<{ verified: Customer } | { refused: ContactCodeRefusal }> {
    return this.store.transaction(async (uow) => {
      const row = await this.pending(uow, platformId, customerId, channel);
      const challenge = await challenges.findContactChallenge(uow.db, platformId, customerId, channel);
      const now = await this.now(platformId, uow);
      if (!challenge) return { refused: { reason: 'NOT_SENT' } } as const;
      if (challenge.expires_at <= now) return { refused: { reason: 'EXPIRED' } } as const;
      if (challenge.failed_attempts >= MAX_WRONG_CONTACT_CODES) return { refused: { reason: 'LOCKED' } } as const;
      if (code !== challenge.code) {
        await challenges.countFailedContactAttempt(uow.db, platformId, customerId, channel);
        return { refused: { reason: 'WRONG', attemptsLeft: MAX_WRONG_CONTACT_CODES - challenge.failed_attempts - 1 } } as const;
      }
      await challenges.deleteContactChallenge(uow.db, platformId, customerId, channel);
      const data = JSON.parse(row.data) as Record<string, unknown>;
      data.contactVerification = { ...contactVerificationOf(row), [channel]: 'VERIFIED' };
      const next = { data: JSON.stringify(data), uma_address: row.uma_address, region: row.region, currency_list: row.currency_list, updated_at: now };
      await repo.updateCustomer(uow.db, platformId, customerId, next);
      return { verified: renderCustomer({ ...row, ...next }) };
    }, within);
  }

  /** The customer, when the channel is required and not verified yet. */
  private async pending(uow: UnitOfWork, platformId: string, customerId: string, channel: ContactChannel): Promise<CustomerRow> {
    const row = await repo.lockCustomer(uow, platformId, customerId);
    if (!row) throw new NotFoundError('Customer', customerId);
    if (row.is_deleted === 1) throw new DeletedError(`Customer ${customerId} has been deleted`);
    const status = contactVerificationOf(row)?.[channel];
    if (status === undefined) throw new InvalidStateError(`Customer ${customerId} does not require ${channel} verification (no contactVerification.${channel})`, 'NOT_REQUIRED');
    if (status === 'VERIFIED') throw new InvalidStateError(`The ${channel} of customer ${customerId} is verified already`, 'VERIFIED');
    return row;
  }
}

function contactVerificationOf(row: CustomerRow): Partial<Record<ContactChannel, ContactStatus>> | undefined {
  return (JSON.parse(row.data) as { contactVerification?: Partial<Record<ContactChannel, ContactStatus>> }).contactVerification;
}
