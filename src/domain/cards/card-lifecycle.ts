import { findAccount } from '../../store/accounts-repo.js';
import type { Executor } from '../../store/store.js';
import type { CardRow } from '../../store/tables/cards.js';
import { CardClosedError, InvalidStateError, type FieldError } from '../shared/errors.js';

export type CardState = 'PENDING_KYC' | 'PROCESSING' | 'ACTIVE' | 'FROZEN' | 'CLOSED';
/** The states a platform may ask for with PATCH /cards/{id}. */
export const REQUESTABLE_CARD_STATES = ['ACTIVE', 'FROZEN', 'CLOSED'] as const;
export type RequestedCardState = (typeof REQUESTABLE_CARD_STATES)[number];
export const CARD_STATE_REASONS = ['ISSUER_REJECTED', 'CLOSED_BY_PLATFORM', 'CLOSED_BY_GRID'] as const;

export const CARD_STATE_CHANGE_EVENT = 'CARD.STATE_CHANGE';
export const CARD_FUNDING_SOURCE_CHANGE_EVENT = 'CARD.FUNDING_SOURCE_CHANGE';
/** The job that brings a new sandbox card from PROCESSING to ACTIVE, as an issuer would. */
export const CARD_PROVISIONING_JOB = 'card.provisioning';

export interface CardProvisioningJob {
  platformId: string;
  cardId: string;
}

/**
 * Why each funding source cannot fund a card of `cardholderId` in `currency`, one entry per
 * source (field `fundingSources[i]`): an id that is not an internal account of this platform
 * (an unknown id and another platform's or environment's look the same), another customer's
 * account, or an account in another currency.
 */
export async function fundingSourceErrors(db: Executor, platformId: string, cardholderId: string, currency: string, ids: string[]): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [i, id] of ids.entries()) {
    const field = `fundingSources[${i}]`;
    const account = await findAccount(db, platformId, id);
    if (!account) errors.push({ field, message: 'is not an internal account of this platform' });
    else if (account.customer_id !== cardholderId) errors.push({ field, message: 'is an internal account of another customer, not of the cardholder' });
    else if (account.currency !== currency) errors.push({ field, message: `is in ${account.currency}; the card's currency is ${currency}` });
  }
  return errors;
}

/**
 * The state a card moves to when `requested` is asked for, or the refusal: ACTIVE <-> FROZEN, and
 * ACTIVE | FROZEN -> CLOSED, as the document lists them (a card still PROCESSING or PENDING_KYC is a 409). CLOSED is final.
 * `changesSettings`: the request also changes the funding sources or the spending limit.
 */
export function nextCardState(card: Pick<CardRow, 'id' | 'state'>, requested: RequestedCardState | undefined, changesSettings: boolean): CardState {
  const from = card.state as CardState;
  if (from === 'CLOSED') {
    if (requested === 'CLOSED') throw new CardClosedError(`Card ${card.id} is already CLOSED`, true);
    if (requested === undefined && changesSettings) throw new CardClosedError(`Card ${card.id} is CLOSED; its funding sources and spending limit can no longer change`, false);
  }
  if (requested === undefined) return from;
  const allowed = requested === 'CLOSED' ? from === 'ACTIVE' || from === 'FROZEN' : requested === 'FROZEN' ? from === 'ACTIVE' : from === 'FROZEN';
  if (!allowed) {
    const needs = requested === 'FROZEN' ? 'only an ACTIVE card can be frozen' : requested === 'ACTIVE' ? 'only a FROZEN card can be unfrozen' : 'only an ACTIVE or FROZEN card can be closed';
    throw new InvalidStateError(`Card ${card.id} is ${from} and cannot become ${requested}: ${needs}`, from);
  }
  return requested;
}
