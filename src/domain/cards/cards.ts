import * as repo from '../../store/cards-repo.js';
import { findCustomer } from '../../store/customers-repo.js';
import type { Store } from '../../store/store.js';
import type { CardRow } from '../../store/tables/cards.js';
import type { SortOrder } from '../../store/page.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { enqueueJob } from '../../store/jobs-repo.js';
import {
  CARD_FUNDING_SOURCE_CHANGE_EVENT,
  CARD_PROVISIONING_JOB,
  CARD_STATE_CHANGE_EVENT,
  fundingSourceErrors,
  nextCardState,
  type CardState,
  type RequestedCardState,
} from './card-lifecycle.js';
import { DEFAULT_DELAYED_ACTIVATION_MS, fundingSourceSuffixErrors, issuanceOutcome, issuanceSuffix, last4FromSuffix, type CardIssuanceJob, type IssuanceOutcome } from './card-issuance.js';
import { CARD_CURRENCY, renderCard, type Card } from './render.js';
import { IneligibleFundingSourceError, KycNotApprovedError, lookupableId, NotFoundError, ValidationError, type FieldError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { listScope, type Cursors, type Page } from '../shared/pagination.js';
import type { Environment } from '../platform/tokens.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import { recordWebhookEvent } from '../webhooks/webhook-events.js';

export type { CardState } from './card-lifecycle.js';
export type { Card, CardTransaction } from './render.js';


export interface CardListFilters {
  cardholderId?: string | undefined;
  /** Cards whose funding sources name this internal account id. */
  accountId?: string | undefined;
  platformCardId?: string | undefined;
  state?: CardState | undefined;
  sortOrder: SortOrder;
}

export interface CreateCardInput {
  cardholderId: string;
  form: 'VIRTUAL';
  platformCardId?: string | undefined;
  /** Internal account ids of the cardholder in the card's currency, in priority order; at least one. */
  fundingSources: string[];
  /** Minor units; omitted: no limit. */
  maxSpendPerTransaction?: number | undefined;
}

/** PATCH /cards/{id}: at least one of the three. */
export interface CardUpdate {
  state?: RequestedCardState | undefined;
  fundingSources?: string[] | undefined;
  /** Minor units; null clears the limit, undefined leaves it. */
  maxSpendPerTransaction?: number | null | undefined;
}

/** Cards and the card transactions read through the transactions API. */
export class CardService {
  constructor(
    private readonly store: Store,
    private readonly cursors: Cursors,
    private readonly clock: PlatformClock,
    /** How long a sandbox card whose suffix is `005` stays PROCESSING before it is activated, on the platform's clock. */
    private readonly delayedActivationMs = DEFAULT_DELAYED_ACTIVATION_MS,
  ) {}


  /**
   * Issues a card PROCESSING, funded by the cardholder's internal accounts in the card's currency,
   * to a cardholder whose KYC/KYB is APPROVED. In the sandbox the issuance suffix (card-issuance.ts)
   * decides what a job later does to it, as an issuer would; production has no issuer connected:
   * it stays PROCESSING. `within`: the request's unit of work, when it has one (an Idempotency-Key).
   */
  async create(platformId: string, environment: Environment, input: CreateCardInput, within?: UnitOfWork): Promise<Card> {
    return this.store.transaction(async (uow) => {
      const holder = await findCustomer(uow.db, platformId, input.cardholderId);
      if (!holder) throw new ValidationError([{ field: 'cardholderId', message: 'is not a customer of this platform' }]);
      const ineligible = await this.fundingErrors(uow, platformId, holder.id, CARD_CURRENCY, input.fundingSources, environment);
      if (ineligible.length > 0) throw new IneligibleFundingSourceError(ineligible);
      if (holder.kyc_status !== 'APPROVED') throw new KycNotApprovedError(holder.id, holder.kyc_status);
      const now = await this.clock.now(platformId, uow);
      const id = newId('Card');
      const expiry = new Date(now);
      const suffix = issuanceSuffix(input.platformCardId, holder.id);
      const row: CardRow = {
        id,
        platform_id: platformId,
        cardholder_id: holder.id,
        platform_card_id: input.platformCardId ?? `card-${id.slice(-12)}`,
        state: 'PROCESSING',
        state_reason: null,
        form: input.form,
        brand: 'VISA',
        last4: last4FromSuffix(suffix),
        exp_month: expiry.getUTCMonth() + 1,
        exp_year: expiry.getUTCFullYear() + 3,
        currency: CARD_CURRENCY,
        funding_sources: JSON.stringify(input.fundingSources),
        max_spend_per_transaction: input.maxSpendPerTransaction ?? null,
        created_at: now,
        updated_at: now,
      };
      await repo.insertCard(uow, row);
      if (environment === 'sandbox') await this.provision(uow, platformId, id, issuanceOutcome(suffix), now);
      return renderCard(row);
    }, within);
  }

  /** Queues the sandbox issuer's answer to a new card: none for `001`, which stays PROCESSING. */
  private async provision(uow: UnitOfWork, platformId: string, cardId: string, outcome: IssuanceOutcome, now: number): Promise<void> {
    if (outcome === 'STAYS_PROCESSING') return;
    const payload: CardIssuanceJob = { platformId, cardId, outcome: outcome === 'ISSUER_REJECTED' ? 'ISSUER_REJECTED' : 'ACTIVE' };
    // The delayed activation is due on the platform's clock (an advance pulls it forward); the others at once.
    const delay = outcome === 'DELAYED_ACTIVATION' ? { runAt: Date.now() + this.delayedActivationMs, platformId, platformDueAt: now + this.delayedActivationMs } : {};
    await enqueueJob(uow, { id: newId('Job'), kind: CARD_PROVISIONING_JOB, payload, queueKey: cardId, ...delay });
  }

  /** Why each funding source cannot be bound: in the sandbox Grid's suffixes first, then the account checks. */
  private async fundingErrors(uow: UnitOfWork, platformId: string, cardholderId: string, currency: string, ids: string[], environment: Environment): Promise<FieldError[]> {
    const bySuffix = environment === 'sandbox' ? fundingSourceSuffixErrors(ids) : [];
    const suffixed = new Set(bySuffix.map((e) => e.field));
    const byAccount = await fundingSourceErrors(uow.db, platformId, cardholderId, currency, ids);
    return [...bySuffix, ...byAccount.filter((e) => !suffixed.has(e.field))].sort((a, b) => fieldIndex(a.field) - fieldIndex(b.field));
  }

  /**
   * Freezes, unfreezes or closes a card (nextCardState says which changes are allowed) and/or
   * replaces its funding sources (checked as on issuance) and/or sets or clears its spending
   * limit. Each state change records a CARD.STATE_CHANGE event; given funding sources record a
   * CARD.FUNDING_SOURCE_CHANGE event; a limit change records none (the document has no event for it).
   */
  async update(platformId: string, environment: Environment, id: string, change: CardUpdate, within?: UnitOfWork): Promise<Card> {
    const changesLimit = change.maxSpendPerTransaction !== undefined;
    if (change.state === undefined && change.fundingSources === undefined && !changesLimit) {
      throw new ValidationError([{ field: 'state', message: 'or fundingSources or maxSpendPerTransaction is required: give at least one of the three' }]);
    }
    if (change.state === 'CLOSED') {
      const withClosed = (['fundingSources', 'maxSpendPerTransaction'] as const).filter((field) => change[field] !== undefined);
      if (withClosed.length > 0) throw new ValidationError(withClosed.map((field) => ({ field, message: 'cannot be given with state CLOSED' })));
    }
    return this.store.transaction(async (uow) => {
      const row = await repo.lockCard(uow, platformId, id);
      if (!row) throw new NotFoundError('Card', id);
      const state = nextCardState(row, change.state, change.fundingSources !== undefined || changesLimit);
      if (change.fundingSources !== undefined) {
        const ineligible = await this.fundingErrors(uow, platformId, row.cardholder_id, row.currency, change.fundingSources, environment);
        if (ineligible.length > 0) throw new IneligibleFundingSourceError(ineligible);
      }
      const now = await this.clock.now(platformId, uow);
      const after: CardRow = {
        ...row,
        state,
        state_reason: state === 'CLOSED' ? 'CLOSED_BY_PLATFORM' : row.state_reason,
        funding_sources: change.fundingSources === undefined ? row.funding_sources : JSON.stringify(change.fundingSources),
        max_spend_per_transaction: changesLimit ? change.maxSpendPerTransaction! : row.max_spend_per_transaction,
        updated_at: now,
      };
      await repo.updateCard(uow.db, id, {
        state: after.state,
        state_reason: after.state_reason,
        funding_sources: after.funding_sources,
        max_spend_per_transaction: after.max_spend_per_transaction,
        updated_at: now,
      });
      const rendered = renderCard(after);
      if (state !== row.state) await recordWebhookEvent(uow, { platformId, type: CARD_STATE_CHANGE_EVENT, fields: { data: rendered } }, now);
      if (change.fundingSources !== undefined) await recordWebhookEvent(uow, { platformId, type: CARD_FUNDING_SOURCE_CHANGE_EVENT, fields: { data: rendered } }, now);
      return rendered;
    }, within);
  }

  /** The reference checks alone, for a request whose other fields failed: reported with them in one 400. */
  async referenceErrors(platformId: string, refs: { cardholderId?: unknown; cardId?: unknown }, within?: UnitOfWork): Promise<FieldError[]> {
    const { db } = within ?? this.store;
    const errors: FieldError[] = [];
    if (lookupableId(refs.cardholderId) && !(await findCustomer(db, platformId, refs.cardholderId))) {
      errors.push({ field: 'cardholderId', message: 'is not a customer of this platform' });
    }
    if (lookupableId(refs.cardId) && !(await repo.findCard(db, platformId, refs.cardId))) {
      errors.push({ field: 'cardId', message: 'is not a card of this platform' });
    }
    return errors;
  }

  async get(platformId: string, id: string): Promise<Card> {
    const row = await repo.findCard(this.store.db, platformId, id);
    if (!row) throw new NotFoundError('Card', id);
    return renderCard(row);
  }

  async list(platformId: string, limit: number, cursor: string | undefined, filters: CardListFilters): Promise<Page<Card>> {
    const scope = listScope('cards', platformId, { ...filters });
    const q = this.cursors.query(scope, limit, cursor, filters.sortOrder);
    const { rows, total } = await repo.listCards(this.store, platformId, q, {
      cardholderId: filters.cardholderId,
      fundingSource: filters.accountId,
      platformCardId: filters.platformCardId,
      state: filters.state,
    });
    return this.cursors.page(scope, q, rows, total, renderCard);
  }
}

const fieldIndex = (field: string) => Number(/\[(\d+)\]/.exec(field)?.[1] ?? 0);
