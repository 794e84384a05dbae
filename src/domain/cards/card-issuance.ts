import * as repo from '../../store/cards-repo.js';
import type { CardRow } from '../../store/tables/cards.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { CARD_STATE_CHANGE_EVENT, type CardProvisioningJob } from './card-lifecycle.js';
import { renderCard } from './render.js';
import type { FieldError } from '../shared/errors.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';

/**
 * What the sandbox issuer does with a new card, from the last three characters of its
 * `platformCardId` (else of its `cardholderId`), per Grid's sandbox guide: `001` stays PROCESSING,
 * `002` is rejected (CLOSED, ISSUER_REJECTED), `005` is activated after a delay, any other at once.
 */
export type IssuanceOutcome = 'STAYS_PROCESSING' | 'ISSUER_REJECTED' | 'DELAYED_ACTIVATION' | 'ACTIVATION';

const ISSUANCE_SUFFIXES: Record<string, IssuanceOutcome> = { '001': 'STAYS_PROCESSING', '002': 'ISSUER_REJECTED', '005': 'DELAYED_ACTIVATION' };

/** Grid's sandbox "about 30 s" before a `005` card becomes ACTIVE. */
export const DEFAULT_DELAYED_ACTIVATION_MS = 30_000;

/** The three characters that decide issuance: of platformCardId when the platform gave one, else of cardholderId. */
export function issuanceSuffix(platformCardId: string | undefined, cardholderId: string): string {
  return (platformCardId ?? cardholderId).slice(-3);
}

export function issuanceOutcome(suffix: string): IssuanceOutcome {
  return ISSUANCE_SUFFIXES[suffix] ?? 'ACTIVATION';
}

/**
 * The card's last4, the same for every card with that suffix: `4` then one digit per character of
 * the suffix (a digit is itself, any other character its UTF-16 code modulo 10), e.g. `042` -> `4042`.
 */
export function last4FromSuffix(suffix: string): string {
  const digits = [...suffix.padStart(3, '0')].slice(-3).map((c) => (c >= '0' && c <= '9' ? c : String(c.charCodeAt(0) % 10)));
  return `4${digits.join('')}`;
}

const FUNDING_SOURCE_SUFFIXES: Record<string, string> = {
  '002': 'is ineligible in the sandbox (suffix 002): its insufficient balance check failed',
  '003': 'is ineligible in the sandbox (suffix 003): the account is closed',
};

/**
 * Grid's sandbox funding-source suffixes on the ids as given: `002` and `003` cannot be bound,
 * whatever the account (existing or not); any other id is then checked as an account.
 */
export function fundingSourceSuffixErrors(ids: string[]): FieldError[] {
  return ids.flatMap((id, i) => {
    const message = FUNDING_SOURCE_SUFFIXES[id.slice(-3)];
    return message === undefined ? [] : [{ field: `fundingSources[${i}]`, message }];
  });
}

/** The provisioning job's payload: the issuer's answer to deliver. Jobs queued before it had no `outcome` and activate. */
export interface CardIssuanceJob extends CardProvisioningJob {
  outcome?: 'ACTIVE' | 'ISSUER_REJECTED';
}

/**
 * The sandbox issuer's answer, in the worker's commit: a card still PROCESSING becomes ACTIVE, or
 * CLOSED with stateReason ISSUER_REJECTED, with a CARD.STATE_CHANGE event; a card closed meanwhile stays.
 */
export async function landCardIssuance(uow: UnitOfWork, job: CardIssuanceJob, now: number): Promise<void> {
  const card = await repo.lockCard(uow, job.platformId, job.cardId);
  if (!card || card.state !== 'PROCESSING') return;
  const rejected = job.outcome === 'ISSUER_REJECTED';
  const after: CardRow = { ...card, state: rejected ? 'CLOSED' : 'ACTIVE', state_reason: rejected ? 'ISSUER_REJECTED' : card.state_reason, updated_at: now };
  await repo.updateCard(uow.db, card.id, { state: after.state, state_reason: after.state_reason, updated_at: now });
  await recordWebhookEvent(uow, { platformId: card.platform_id, type: CARD_STATE_CHANGE_EVENT, fields: { data: renderCard(after) } }, now);
}
