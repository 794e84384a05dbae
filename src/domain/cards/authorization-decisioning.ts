/**
 * Authorization decisioning, pure: whether an authorization is approved, which funding source
 * funds it and how its pull goes. Grid's sandbox steers the outcome by the last three characters
 * of the merchant descriptor; otherwise the card's state, its spending limit and its funding sources'
 * balances decide.
 */
import type { DeclineReason, Direction } from './card-transactions.js';

/** How the pull on the funding source of an approved authorization is reported. */
export type PullReport =
  /** Confirmed as the authorization lands. */
  | 'CONFIRMED'
  /** Confirmed after a delay (suffix 005): the pull stays pending meanwhile. */
  | 'DELAYED'
  /** Goes through but is reported failed (suffix 006): the transaction ends in EXCEPTION. */
  | 'REPORTED_FAILED';

export type Decision = { approved: true; accountId: string; pull: PullReport } | { approved: false; accountId: string; reason: DeclineReason; message: string };

/** What the descriptor's suffix asks for: a decline, or how an approval's pull is reported. */
export function suffixOutcome(descriptor: string): { decline: DeclineReason } | { pull: PullReport } {
  switch (descriptor.slice(-3)) {
    case '002':
      return { decline: 'INSUFFICIENT_FUNDS' };
    case '003':
      return { decline: 'CARD_PAUSED' };
    case '005':
      return { pull: 'DELAYED' };
    case '006':
      return { pull: 'REPORTED_FAILED' };
    default:
      return { pull: 'CONFIRMED' };
  }
}

/** The decline a descriptor forces, known at acceptance already (the rest is decided when it lands). */
export function declineBySuffix(descriptor: string): DeclineReason | undefined {
  const outcome = suffixOutcome(descriptor);
  return 'decline' in outcome ? outcome.decline : undefined;
}

/**
 * Decides an authorization of `amount` on a card in `cardState`, in this order: a card that is not
 * ACTIVE declines CARD_PAUSED; an amount above `maxSpendPerTransaction` (null: no limit) declines
 * SPEND_LIMIT_EXCEEDED; then the descriptor's suffix; then the funds. A CREDIT (money coming in)
 * is decided by the card's state and the suffix's declines alone, and pulls nothing, nor does an
 * amount of 0 (a balance inquiry), so the suffixes 005 and 006 leave both approved and confirmed. `candidates` are the card's funding
 * sources in priority order (at least one); `balanceOf` reads one's available balance, asked only
 * for the sources tried, in order, so a caller can lock each as it reads it. The first source with
 * the amount available funds it. A declined authorization names the first source as its account.
 */
export async function decide(
  input: { cardState: string; maxSpendPerTransaction: number | null; descriptor: string; amount: number; candidates: string[]; direction?: Direction },
  balanceOf: (accountId: string) => Promise<number>,
): Promise<Decision> {
  const first = input.candidates[0]!;
  if (input.cardState !== 'ACTIVE') {
    return { approved: false, accountId: first, reason: 'CARD_PAUSED', message: `the card is ${input.cardState}; only an ACTIVE card is authorized` };
  }
  const credit = input.direction === 'CREDIT';
  if (!credit && input.maxSpendPerTransaction !== null && input.amount > input.maxSpendPerTransaction) {
    return { approved: false, accountId: first, reason: 'SPEND_LIMIT_EXCEEDED', message: `${input.amount} is above the card's maxSpendPerTransaction, ${input.maxSpendPerTransaction}` };
  }
  const outcome = suffixOutcome(input.descriptor);
  if ('decline' in outcome) {
    return { approved: false, accountId: first, reason: outcome.decline, message: `declined by the merchant descriptor's suffix ${input.descriptor.slice(-3)}` };
  }
  if (credit || input.amount === 0) return { approved: true, accountId: first, pull: 'CONFIRMED' };
  for (const id of input.candidates) {
    if ((await balanceOf(id)) >= input.amount) return { approved: true, accountId: id, pull: outcome.pull };
  }
  const sources = input.candidates.length === 1 ? 'the funding source has' : `none of the ${input.candidates.length} funding sources has`;
  return { approved: false, accountId: first, reason: 'INSUFFICIENT_FUNDS', message: `${sources} ${input.amount} available` };
}
