import { randomBytes } from 'node:crypto';
import { findCustomerByUma, findInvitation, insertInvitation, settleInvitation } from '../../store/quotes-repo.js';
import type { Store } from '../../store/store.js';
import type { UmaInvitationRow } from '../../store/tables/quotes.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { isRated } from '../fx/rate-table.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { currencyOf, type CurrencyAmount } from '../shared/currencies.js';
import { NotFoundError, PaymentRefusedError, ValidationError } from '../shared/errors.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';
import { isUmaAddress } from './sandbox-uma.js';

export const INVITATION_STATUSES = ['PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED'] as const;
export const INVITATION_CLAIMED_EVENT = 'INVITATION.CLAIMED';
/** Where an invitation would be claimed: a reserved domain, as the sandbox hosts no claim page. */
const INVITATION_BASE = 'https://invite.sandbox.invalid/';

export interface UmaInvitation {
  code: string;
  createdAt: string;
  claimedAt?: string;
  url: string;
  expiresAt?: string;
  inviterUma: string;
  inviteeUma?: string;
  status: (typeof INVITATION_STATUSES)[number];
  firstName?: string;
  amountToSend?: CurrencyAmount;
}

export interface CreateInvitationInput {
  inviterUma: string;
  firstName?: string | undefined;
  amountToSend?: number | undefined;
  expiresAt?: string | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** 12 characters of Crockford base32 (no I, L, O, U): easy to read aloud, 60 bits of chance. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const newCode = () => [...randomBytes(12)].map((b) => ALPHABET[b % 32]).join('');

/** A PENDING invitation past its expiresAt on the platform's clock reads as EXPIRED. */
function statusAt(row: UmaInvitationRow, now: number): UmaInvitation['status'] {
  return row.status === 'PENDING' && row.expires_at !== null && now >= Number(row.expires_at) ? 'EXPIRED' : (row.status as UmaInvitation['status']);
}

export function renderInvitation(row: UmaInvitationRow, now: number): UmaInvitation {
  const out: UmaInvitation = { code: row.code, createdAt: iso(Number(row.created_at)), url: `${INVITATION_BASE}${row.code}`, inviterUma: row.inviter_uma, status: statusAt(row, now) };
  if (row.claimed_at !== null) out.claimedAt = iso(Number(row.claimed_at));
  if (row.expires_at !== null) out.expiresAt = iso(Number(row.expires_at));
  if (row.invitee_uma !== null) out.inviteeUma = row.invitee_uma;
  if (row.first_name !== null) out.firstName = row.first_name;
  if (row.amount_to_send !== null && row.amount_currency !== null) out.amountToSend = { amount: Number(row.amount_to_send), currency: currencyOf(row.amount_currency) };
  return out;
}

/** UMA invitations of a platform's customers: created, read, claimed once (INVITATION.CLAIMED), or cancelled. */
export class InvitationService {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
  ) {}

  async create(platformId: string, input: CreateInvitationInput, within?: UnitOfWork): Promise<UmaInvitation> {
    return this.store.transaction(async (uow) => {
      if (!isUmaAddress(input.inviterUma)) throw new PaymentRefusedError('INVALID_UMA_ADDRESS', 'Invalid inviterUma: must be $user@domain', [{ field: 'inviterUma', message: 'must be $user@domain' }]);
      const now = await this.clock.now(platformId, uow);
      const inviter = await findCustomerByUma(uow.db, platformId, input.inviterUma);
      const errors = [];
      if (!inviter) errors.push({ field: 'inviterUma', message: 'is not the UMA address of a customer of this platform' });
      const expiresAt = input.expiresAt === undefined ? null : Date.parse(input.expiresAt);
      if (expiresAt !== null && !(expiresAt > now)) errors.push({ field: 'expiresAt', message: "must be later than now on the platform's clock" });
      if (errors.length > 0) throw new ValidationError(errors);
      const currency = inviter!.currency_list.split(',').find((c) => c !== '' && isRated(c)) ?? 'USD';
      const row: UmaInvitationRow = {
        code: newCode(),
        platform_id: platformId,
        status: 'PENDING',
        inviter_uma: input.inviterUma,
        invitee_uma: null,
        first_name: input.firstName ?? null,
        amount_to_send: input.amountToSend ?? null,
        amount_currency: input.amountToSend === undefined ? null : currency,
        expires_at: expiresAt,
        claimed_at: null,
        created_at: now,
        updated_at: now,
      };
      await insertInvitation(uow.db, row);
      return renderInvitation(row, now);
    }, within);
  }

  async get(platformId: string, code: string): Promise<UmaInvitation> {
    const row = await findInvitation(this.store.db, platformId, code);
    if (!row) throw new NotFoundError('Invitation', code);
    return renderInvitation(row, await this.clock.now(platformId));
  }

  /** Claims a PENDING invitation for `inviteeUma` and records INVITATION.CLAIMED with it, in one commit. */
  async claim(platformId: string, code: string, inviteeUma: string, within?: UnitOfWork): Promise<UmaInvitation> {
    return this.store.transaction(async (uow) => {
      if (!isUmaAddress(inviteeUma)) throw new PaymentRefusedError('INVALID_UMA_ADDRESS', 'Invalid inviteeUma: must be $user@domain', [{ field: 'inviteeUma', message: 'must be $user@domain' }]);
      const now = await this.clock.now(platformId, uow);
      const row = await this.pending(uow, platformId, code, now);
      if (row.inviter_uma.toLowerCase() === inviteeUma.toLowerCase()) throw new ValidationError([{ field: 'inviteeUma', message: 'is the inviter: an invitation is claimed by someone else' }]);
      const changes = { status: 'CLAIMED', invitee_uma: inviteeUma, claimed_at: now, updated_at: now };
      if (!(await settleInvitation(uow.db, platformId, code, changes))) return this.refuse((await findInvitation(uow.db, platformId, code))!, now);
      const invitation = renderInvitation({ ...row, ...changes }, now);
      await recordWebhookEvent(uow, { platformId, type: INVITATION_CLAIMED_EVENT, fields: { data: invitation } }, now);
      return invitation;
    }, within);
  }

  async cancel(platformId: string, code: string, within?: UnitOfWork): Promise<UmaInvitation> {
    return this.store.transaction(async (uow) => {
      const now = await this.clock.now(platformId, uow);
      const row = await this.pending(uow, platformId, code, now);
      const changes = { status: 'CANCELLED', updated_at: now };
      if (!(await settleInvitation(uow.db, platformId, code, changes))) return this.refuse((await findInvitation(uow.db, platformId, code))!, now);
      return renderInvitation({ ...row, ...changes }, now);
    }, within);
  }

  /** The invitation, if it can still be claimed or cancelled; otherwise the document's 400 for its state. */
  private async pending(uow: UnitOfWork, platformId: string, code: string, now: number): Promise<UmaInvitationRow> {
    const row = await findInvitation(uow.db, platformId, code);
    if (!row) throw new NotFoundError('Invitation', code);
    if (statusAt(row, now) !== 'PENDING') this.refuse(row, now);
    return row;
  }

  private refuse(row: UmaInvitationRow, now: number): never {
    const status = statusAt(row, now);
    if (status === 'CLAIMED') throw new PaymentRefusedError('INVITATION_ALREADY_CLAIMED', `Invitation ${row.code} was claimed already`);
    throw new PaymentRefusedError('INVITATION_CANCELLED', `Invitation ${row.code} is ${status} and can no longer be claimed or cancelled`);
  }
}
