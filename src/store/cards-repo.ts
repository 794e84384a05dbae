import { sql } from 'kysely';
import type { Database } from './database.js';
import { afterPosition, keysetOrder, keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Engine, Executor } from './store.js';
import type { CardOperationRow, CardOperationStatus, CardRow, CardTransactionRow } from './tables/cards.js';

export type CardTransactionView = CardTransactionRow & { platform_customer_id: string };

/** Inserts a card, placed on the cards list when the transaction commits (see insertListed). */
export async function insertCard(db: Executor, row: CardRow): Promise<void> {
  await insertListed(db, 'cards', row, (trx, r) => trx.insertInto('cards').values(r).execute());
}

/** A card of this platform (another platform's is not found); `lock` takes a row lock until the caller's transaction ends (PostgreSQL). */
export async function findCard(db: Executor, platformId: string, id: string, lock = false): Promise<CardRow | undefined> {
  const q = db.selectFrom('cards').selectAll().where('id', '=', id).where('platform_id', '=', platformId);
  return (lock ? q.forNoKeyUpdate() : q).executeTakeFirst();
}

export async function updateCard(db: Executor, id: string, patch: Partial<Pick<CardRow, 'state' | 'state_reason' | 'funding_sources' | 'updated_at'>>): Promise<void> {
  await db.updateTable('cards').set(patch).where('id', '=', id).execute();
}

export interface CardFilters {
  cardholderId?: string | undefined;
  /** Cards whose funding sources name this internal account id. */
  fundingSource?: string | undefined;
  platformCardId?: string | undefined;
  state?: string | undefined;
}

/** `funding_sources` (a JSON array of ids) names the id: a whole element, never a substring. */
function namesFundingSource(engine: Engine, id: string) {
  return engine === 'postgres'
    ? sql<boolean>`cards.funding_sources::jsonb @> jsonb_build_array(${id}::text)`
    : sql<boolean>`exists (select 1 from json_each(cards.funding_sources) where json_each.value = ${id})`;
}

export async function listCards(db: Executor, engine: Engine, platformId: string, q: PageQuery, f: CardFilters): Promise<{ rows: CardRow[]; total: number }> {
  let base = db.selectFrom('cards').where('platform_id', '=', platformId);
  if (f.cardholderId !== undefined) base = base.where('cardholder_id', '=', f.cardholderId);
  if (f.platformCardId !== undefined) base = base.where('platform_card_id', '=', f.platformCardId);
  if (f.state !== undefined) base = base.where('state', '=', f.state);
  if (f.fundingSource !== undefined) base = base.where(namesFundingSource(engine, f.fundingSource));
  return keysetPage<CardRow, Database, 'cards'>(base, q);
}

/** A transaction is inserted PENDING, off the list; it is placed on it (listAtCommit) when its authorization lands. */
export async function insertCardTransaction(db: Executor, row: CardTransactionRow): Promise<void> {
  await db.insertInto('card_transactions').values({ ...row, list_position: row.created_at }).execute();
}

/**
 * Reads a transaction of this platform and, on PostgreSQL, locks its row until the caller's
 * transaction ends, so acceptances and landings on one transaction run one at a time.
 * (SQLite transactions are BEGIN IMMEDIATE and already serialized.)
 */
export async function lockCardTransaction(db: Executor, engine: Engine, platformId: string, id: string): Promise<CardTransactionRow | undefined> {
  let q = db.selectFrom('card_transactions').selectAll().where('id', '=', id).where('platform_id', '=', platformId);
  if (engine === 'postgres') q = q.modifyEnd(sql`for no key update`);
  return q.executeTakeFirst();
}

export async function updateCardTransaction(
  db: Executor,
  id: string,
  patch: Partial<Omit<CardTransactionRow, 'id' | 'platform_id' | 'card_id' | 'customer_id'>>,
): Promise<void> {
  await db.updateTable('card_transactions').set(patch).where('id', '=', id).execute();
}

function visibleTransactions(db: Executor, platformId: string) {
  return db
    .selectFrom('card_transactions as t')
    .innerJoin('customers as c', 'c.id', 't.customer_id')
    .where('t.platform_id', '=', platformId)
    .where('t.status', '!=', 'PENDING');
}

/** A transaction whose authorization has landed; a pending or foreign one is not found. */
export async function findCardTransaction(db: Executor, platformId: string, id: string): Promise<CardTransactionView | undefined> {
  return visibleTransactions(db, platformId).selectAll('t').select('c.platform_customer_id').where('t.id', '=', id).executeTakeFirst();
}

export interface CardTransactionFilters {
  cardId?: string | undefined;
  customerId?: string | undefined;
  platformCustomerId?: string | undefined;
  status?: string | undefined;
  /** Creation time bounds in epoch ms, both inclusive. */
  createdFrom?: number | undefined;
  createdTo?: number | undefined;
  /** A filter no card transaction can satisfy (e.g. a type or field card transactions do not have). */
  matchesNothing?: boolean;
}

export async function listCardTransactions(
  db: Executor,
  platformId: string,
  q: PageQuery,
  f: CardTransactionFilters,
): Promise<{ rows: CardTransactionView[]; total: number }> {
  let base = visibleTransactions(db, platformId);
  if (f.cardId !== undefined) base = base.where('t.card_id', '=', f.cardId);
  if (f.customerId !== undefined) base = base.where('t.customer_id', '=', f.customerId);
  if (f.platformCustomerId !== undefined) base = base.where('c.platform_customer_id', '=', f.platformCustomerId);
  if (f.status !== undefined) base = base.where('t.status', '=', f.status);
  if (f.createdFrom !== undefined) base = base.where('t.created_at', '>=', f.createdFrom);
  if (f.createdTo !== undefined) base = base.where('t.created_at', '<=', f.createdTo);
  if (f.matchesNothing) base = base.where(sql<boolean>`1 = 0`);
  let page = base.selectAll('t').select('c.platform_customer_id');
  if (q.after) page = page.where(afterPosition(q.after, 't', q.order));
  const rows = await keysetOrder(page, q.order, 't').limit(q.limit + 1).execute();
  const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

/** A cardholder's platformCustomerId; cardholders are never removed, so one always exists. */
export async function platformCustomerIdOf(db: Executor, customerId: string): Promise<string> {
  const row = await db.selectFrom('customers').select('platform_customer_id').where('id', '=', customerId).executeTakeFirstOrThrow();
  return row.platform_customer_id;
}

export async function insertCardOperation(db: Executor, row: CardOperationRow): Promise<void> {
  await db.insertInto('card_operations').values(row).execute();
}

/** Every operation of the given transactions, in acceptance order. */
export async function operationsOf(db: Executor, transactionIds: string[]): Promise<CardOperationRow[]> {
  if (transactionIds.length === 0) return [];
  return db
    .selectFrom('card_operations')
    .selectAll()
    .where('card_transaction_id', 'in', transactionIds)
    .orderBy('card_transaction_id')
    .orderBy('seq')
    .execute();
}

export async function finishCardOperation(
  db: Executor,
  id: string,
  patch: { status: Exclude<CardOperationStatus, 'PENDING'>; amount: number | null; reason: string | null; processed_at: number },
): Promise<void> {
  await db.updateTable('card_operations').set(patch).where('id', '=', id).where('status', '=', 'PENDING').execute();
}
