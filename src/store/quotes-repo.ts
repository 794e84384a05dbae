import type { UnitOfWork } from './unit-of-work.js';
import type { Executor } from './store.js';
import type { ExchangeRateOverrideRow, QuoteRow, UmaInvitationRow } from './tables/quotes.js';

/** The rates a platform set, every corridor or one source's. */
export async function listRateOverrides(db: Executor, platformId: string): Promise<ExchangeRateOverrideRow[]> {
  return db.selectFrom('exchange_rate_overrides').selectAll().where('platform_id', '=', platformId).execute();
}

export async function findRateOverride(db: Executor, platformId: string, from: string, to: string): Promise<ExchangeRateOverrideRow | undefined> {
  return db
    .selectFrom('exchange_rate_overrides')
    .selectAll()
    .where('platform_id', '=', platformId)
    .where('source_currency', '=', from)
    .where('destination_currency', '=', to)
    .executeTakeFirst();
}

/** Sets one corridor's rate, replacing any set before. */
export async function upsertRateOverride(db: Executor, row: ExchangeRateOverrideRow): Promise<void> {
  await db
    .insertInto('exchange_rate_overrides')
    .values(row)
    .onConflict((oc) => oc.columns(['platform_id', 'source_currency', 'destination_currency']).doUpdateSet({ exchange_rate: row.exchange_rate, updated_at: row.updated_at }))
    .execute();
}

export async function insertQuote(db: Executor, row: QuoteRow): Promise<void> {
  await db.insertInto('quotes').values(row).execute();
}

/** findQuote, its row locked until the unit of work ends on PostgreSQL (SQLite serializes writers already): one execution per quote. */
export async function lockQuote(uow: UnitOfWork, platformId: string, id: string): Promise<QuoteRow | undefined> {
  const q = uow.db.selectFrom('quotes').selectAll().where('id', '=', id).where('platform_id', '=', platformId);
  return (uow.engine === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
}

/** Moves a quote by its transaction: PROCESSING at execution, COMPLETED or FAILED as the payment ends. */
export async function setQuoteStatusByTransaction(db: Executor, transactionId: string, status: string, now: number): Promise<void> {
  await db.updateTable('quotes').set({ status, updated_at: now }).where('transaction_id', '=', transactionId).execute();
}

/** setQuoteStatusByTransaction for many transactions: a statement per status. */
export async function setQuoteStatusesByTransaction(uow: UnitOfWork, changes: readonly { transactionId: string; status: string }[], now: number): Promise<void> {
  const byStatus = new Map<string, string[]>();
  for (const c of changes) byStatus.set(c.status, [...(byStatus.get(c.status) ?? []), c.transactionId]);
  for (const [status, ids] of byStatus) await uow.write(uow.db.updateTable('quotes').set({ status, updated_at: now }).where('transaction_id', 'in', ids));
}

/** A quote of this platform; another platform's is not found. */
export async function findQuote(db: Executor, platformId: string, id: string): Promise<QuoteRow | undefined> {
  return db.selectFrom('quotes').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst();
}

export async function insertInvitation(db: Executor, row: UmaInvitationRow): Promise<void> {
  await db.insertInto('uma_invitations').values(row).execute();
}

/** An invitation of this platform; another platform's is not found. */
export async function findInvitation(db: Executor, platformId: string, code: string): Promise<UmaInvitationRow | undefined> {
  return db.selectFrom('uma_invitations').selectAll().where('code', '=', code).where('platform_id', '=', platformId).executeTakeFirst();
}

/**
 * Moves a PENDING invitation to `status`; false when it was no longer PENDING (another request got
 * there first), so each transition happens once.
 */
export async function settleInvitation(
  db: Executor,
  platformId: string,
  code: string,
  changes: Pick<UmaInvitationRow, 'status' | 'updated_at'> & Partial<Pick<UmaInvitationRow, 'invitee_uma' | 'claimed_at'>>,
): Promise<boolean> {
  const result = await db.updateTable('uma_invitations').set(changes).where('code', '=', code).where('platform_id', '=', platformId).where('status', '=', 'PENDING').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The live customer of this platform with this UMA address, if any: a receiver this platform hosts. */
export async function findCustomerByUma(db: Executor, platformId: string, umaAddress: string): Promise<{ id: string; currency_list: string } | undefined> {
  return db
    .selectFrom('customers')
    .select(['id', 'currency_list'])
    .where('platform_id', '=', platformId)
    .where('uma_address', '=', umaAddress)
    .where('is_deleted', '=', 0)
    .executeTakeFirst();
}
