/**
 * The ledger's arithmetic, pure: which entries a card operation or a transfer writes, and what they do to the
 * balances. Every entry's amount is signed, in minor units, and is its effect on the available
 * balance; holds and hold releases do not move the total. So, for any account:
 *   available = sum of every entry = funded - debits + credits - open holds
 *   total     = sum of the entries that are not holds = funded - debits + credits
 */
import type { LedgerEntryRow } from '../../store/tables/internal-accounts.js';
import type { Ledger } from '../cards/card-transactions.js';
import { newId } from '../shared/ids.js';

export const ENTRY_KINDS = [
  'FUNDING', 'HOLD', 'HOLD_RELEASE', 'CLEARING_DEBIT', 'CLEARING_CREDIT', 'RETURN_CREDIT', 'RETURN_REVERSAL_DEBIT',
  'TRANSFER_OUT_HOLD', 'TRANSFER_OUT_HOLD_RELEASE', 'TRANSFER_OUT_DEBIT', 'TRANSFER_IN_CREDIT',
  'PAYMENT_RETURN_CREDIT', 'PLATFORM_FEE_CREDIT', 'PLATFORM_FEE_REVERSAL',
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface Movement {
  kind: EntryKind;
  /** Signed effect on the available balance. */
  amount: number;
}

const HOLD_KINDS: ReadonlySet<EntryKind> = new Set(['HOLD', 'HOLD_RELEASE', 'TRANSFER_OUT_HOLD', 'TRANSFER_OUT_HOLD_RELEASE']);

/** Whether an entry of this kind is a hold or a hold's release (it moves the available balance only). */
export const isHoldKind = (kind: string): boolean => HOLD_KINDS.has(kind as EntryKind);

/** What a movement does to the total balance: holds and their releases leave it alone. */
export const totalEffect = (m: Movement): number => (HOLD_KINDS.has(m.kind) ? 0 : m.amount);

/**
 * The amount a card transaction holds: its authorized amount not yet settled, while it can still
 * settle, or while it is an EXCEPTION (its pull went through but was reported failed: the money
 * stays held, neither released nor debited, until reconciled). An expiry (EXPIRED) releases it; a
 * clearing turns it into a debit; a declined authorization (DECLINED) never held anything, nor
 * does a CREDIT transaction (money coming in is not held).
 */
export function openHold(l: Ledger): number {
  if (l.direction === 'CREDIT') return 0;
  const holding = l.status === 'AUTHORIZED' || l.status === 'PARTIALLY_SETTLED' || l.status === 'EXCEPTION';
  return holding ? Math.max(l.authorized - l.settled, 0) : 0;
}

/**
 * The entries a landed operation writes, from the transaction before and after it: the change of
 * its open hold (a hold, or a release), then the money that moved (a clearing debits what it
 * settled, the part above the hold included, or on a CREDIT transaction credits it; a return
 * credits; a return reversal debits again).
 */
export function movementsOf(before: Ledger, after: Ledger): Movement[] {
  const out: Movement[] = [];
  const hold = openHold(after) - openHold(before);
  if (hold > 0) out.push({ kind: 'HOLD', amount: -hold });
  if (hold < 0) out.push({ kind: 'HOLD_RELEASE', amount: -hold });
  const settled = after.settled - before.settled;
  if (settled > 0) out.push(after.direction === 'CREDIT' ? { kind: 'CLEARING_CREDIT', amount: settled } : { kind: 'CLEARING_DEBIT', amount: -settled });
  const refunded = after.refunded - before.refunded;
  if (refunded > 0) out.push({ kind: 'RETURN_CREDIT', amount: refunded });
  if (refunded < 0) out.push({ kind: 'RETURN_REVERSAL_DEBIT', amount: refunded });
  return out;
}

/** The change of both balances that a set of movements makes. */
export function balanceDelta(movements: Movement[]): { available: number; total: number } {
  let available = 0;
  let total = 0;
  for (const m of movements) {
    available += m.amount;
    total += totalEffect(m);
  }
  return { available, total };
}

/** Movements of one account, and what made them (a card operation, or a transfer). */
export interface Posting {
  platformId: string;
  accountId: string;
  movements: Movement[];
  cardTransactionId?: string;
  cardOperationId?: string;
  /** The transfer (payment transaction) that made the entries. */
  paymentTransactionId?: string;
}

/**
 * The postings grouped by account, in the order of each account's first posting: per account its
 * platform, its ledger entries (one per movement, stamped `now`) and what they do to its balances.
 */
export function entriesByAccount(postings: readonly Posting[], now: number): { id: string; platformId: string; entries: LedgerEntryRow[]; delta: { available: number; total: number } }[] {
  const byAccount = new Map<string, { platformId: string; entries: LedgerEntryRow[]; movements: Movement[] }>();
  for (const p of postings) {
    let account = byAccount.get(p.accountId);
    if (!account) byAccount.set(p.accountId, (account = { platformId: p.platformId, entries: [], movements: [] }));
    for (const m of p.movements) {
      account.movements.push(m);
      account.entries.push({
        id: newId('LedgerEntry'),
        platform_id: p.platformId,
        account_id: p.accountId,
        kind: m.kind,
        amount: m.amount,
        card_transaction_id: p.cardTransactionId ?? null,
        card_operation_id: p.cardOperationId ?? null,
        payment_transaction_id: p.paymentTransactionId ?? null,
        created_at: now,
      });
    }
  }
  return [...byAccount].map(([id, a]) => ({ id, platformId: a.platformId, entries: a.entries, delta: balanceDelta(a.movements) }));
}
