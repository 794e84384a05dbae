import { createHmac, randomUUID } from 'node:crypto';
import luhn from 'fast-luhn';
import { findCardRevealPlatform, insertCardReveal, useCardReveal } from '../../store/card-reveals-repo.js';
import { findCard } from '../../store/cards-repo.js';
import type { Store } from '../../store/store.js';
import type { CardRow } from '../../store/tables/cards.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import type { PlatformClock } from '../platform/platform-clock.js';
import type { Environment } from '../platform/tokens.js';
import { NotFoundError, NotImplementedError } from '../shared/errors.js';
import { signedToken, verifiedTokenId } from '../shared/signed-tokens.js';

/** Grid's reveal URLs expire "within minutes". */
export const DEFAULT_REVEAL_TTL_MS = 5 * 60_000;

export interface CardRevealGrant {
  /** The bearer credential of the reveal page: `<reveal id>.<HMAC of it>`. */
  token: string;
  expiresAt: string;
}

/** What the reveal page shows: never logged, never in an API answer or a webhook. */
export interface RevealedCard {
  cardId: string;
  pan: string;
  cvv: string;
  expMonth: number;
  expYear: number;
}

/**
 * Sandbox card reveals: a short-lived, single-use token for a page showing a sandbox PAN (Luhn-valid,
 * ending in the card's last4), CVV and expiry, each derived from the card id with a server key.
 */
export class CardReveals {
  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    /** The server key (settings table) that signs tokens and derives each card's PAN and CVV. */
    private readonly key: Buffer,
    private readonly ttlMs = DEFAULT_REVEAL_TTL_MS,
  ) {}

  /** Every timestamp this service writes or compares: the platform's clock (a reveal expires on it). */
  private now(platformId: string, uow?: UnitOfWork): Promise<number> {
    return this.clock.now(platformId, uow);
  }

  /** Production has no card issuer to reveal from: 501, as the document answers environments without one. */
  async reveal(platformId: string, environment: Environment, requestedBy: string, cardId: string, within?: UnitOfWork): Promise<CardRevealGrant> {
    if (environment === 'production') throw new NotImplementedError('revealCard (POST /cards/{id}/reveal) needs a card issuer; production environments here have none');
    return this.store.transaction(async (uow) => {
      const card = await findCard(uow.db, platformId, cardId);
      if (!card) throw new NotFoundError('Card', cardId);
      const now = await this.now(platformId, uow);
      const id = randomUUID();
      const expiresAt = now + this.ttlMs;
      await insertCardReveal(uow, { id, platform_id: platformId, card_id: card.id, requested_by: requestedBy, created_at: now, expires_at: expiresAt, used_at: null });
      return { token: signedToken(this.key, 'reveal', id), expiresAt: new Date(expiresAt).toISOString() };
    }, within);
  }

  /** The card behind a token, using the token up; undefined for a forged, unknown, used or expired one (all alike). */
  async open(token: string): Promise<RevealedCard | undefined> {
    const id = verifiedTokenId(this.key, 'reveal', token);
    if (!id) return undefined;
    return this.store.transaction(async (uow) => {
      const platformId = await findCardRevealPlatform(uow.db, id);
      if (!platformId) return undefined;
      const reveal = await useCardReveal(uow.db, id, await this.now(platformId, uow));
      const card = reveal && (await findCard(uow.db, reveal.platform_id, reveal.card_id));
      return card ? revealed(this.key, card) : undefined;
    });
  }
}

function revealed(key: Buffer, card: CardRow): RevealedCard {
  return { cardId: card.id, pan: sandboxPan(key, card.id, card.last4), cvv: digits(key, `cvv:${card.id}`, 3), expMonth: card.exp_month, expYear: card.exp_year };
}

/** `4` (Visa), ten digits from the card id, the one digit that makes the Luhn check pass, then last4. */
export function sandboxPan(key: Buffer, cardId: string, last4: string): string {
  const head = `4${digits(key, `pan:${cardId}`, 10)}`;
  for (let d = 0; d <= 9; d++) if (luhn(`${head}${d}${last4}`)) return `${head}${d}${last4}`;
  throw new Error('unreachable: one digit in a position the Luhn sum does not double always completes it');
}

function digits(key: Buffer, label: string, n: number): string {
  return [...createHmac('sha256', key).update(label).digest().subarray(0, n)].map((b) => b % 10).join('');
}
