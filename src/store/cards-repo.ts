// Written once per engine: acceptAuthorization and the lock* reads (the bulk writes go through bulk.ts).
import { sql } from 'kysely';
import { insertSelected, updateRows } from './bulk.js';
import type { Database } from './database.js';
import { afterPosition, keysetOrder, keysetPage } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Engine, Executor, Queryable, Store } from './store.js';
import type { CardOperationRow, CardOperationStatus, CardRow, CardTransactionRow } from './tables/cards.js';
import type { InternalAccountRow } from './tables/internal-accounts.js';
import type { JobRow } from './tables/jobs.js';
import { liveTokenCount } from './tokens-repo.js';
import { UnitOfWork } from './unit-of-work.js';

export type CardTransactionView = CardTransactionRow & { platform_customer_id: string };

/** Inserts a card, placed on the cards list when the unit of work commits (see insertListed). */
export async function insertCard(uow: UnitOfWork, row: CardRow): Promise<void> {
  await insertListed(uow, 'cards', row, (db, r) => db.insertInto('cards').values(r).execute());
}

const cardOf = (db: Executor, platformId: string, id: string) => db.selectFrom('cards').selectAll().where('id', '=', id).where('platform_id', '=', platformId);

/** A card of this platform (another platform's is not found). */
export async function findCard(db: Executor, platformId: string, id: string): Promise<CardRow | undefined> {
  return cardOf(db, platformId, id).executeTakeFirst();
}

/**
 * findCard, to decide a change of the card: on PostgreSQL its row stays locked until the unit of
 * work ends (SQLite's transactions begin IMMEDIATE and are serialized already).
 */
export async function lockCard(uow: UnitOfWork, platformId: string, id: string): Promise<CardRow | undefined> {
  const q = cardOf(uow.db, platformId, id);
  return (uow.engine === 'postgres' ? q.forNoKeyUpdate() : q).executeTakeFirst();
}

export async function updateCard(db: Executor, id: string, patch: Partial<Pick<CardRow, 'state' | 'state_reason' | 'funding_sources' | 'max_spend_per_transaction' | 'updated_at'>>): Promise<void> {
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

export async function listCards(on: Queryable, platformId: string, q: PageQuery, f: CardFilters): Promise<{ rows: CardRow[]; total: number }> {
  let base = on.db.selectFrom('cards').where('platform_id', '=', platformId);
  if (f.cardholderId !== undefined) base = base.where('cardholder_id', '=', f.cardholderId);
  if (f.platformCardId !== undefined) base = base.where('platform_card_id', '=', f.platformCardId);
  if (f.state !== undefined) base = base.where('state', '=', f.state);
  if (f.fundingSource !== undefined) base = base.where(namesFundingSource(on.engine, f.fundingSource));
  return keysetPage<CardRow, Database, 'cards'>(base, q);
}

/** A transaction is inserted PENDING, off the list; it is placed on it (listAtCommit) when its authorization lands. */
export async function insertCardTransaction(db: Executor, row: CardTransactionRow): Promise<void> {
  await db.insertInto('card_transactions').values({ ...row, list_position: row.created_at }).execute();
}

export interface AcceptedAuthorizationRows {
  /** The new transaction (PENDING); its cardholder and currency are the card's. */
  transaction: Omit<CardTransactionRow, 'customer_id' | 'currency' | 'list_position'>;
  operation: CardOperationRow;
  job: JobRow;
}

export interface AuthorizationAcceptance {
  /** The request's token: nothing is written unless it is live (not revoked). Absent: not checked. */
  tokenId?: string | undefined;
  /** The currency the authorization is in: nothing is written unless it is the card's. Undefined: the card's, whatever it is (a balance inquiry). */
  currency: string | undefined;
  /** False: nothing is written (a refusal the caller found, reported once the card is known). */
  acceptable: boolean;
  rows: AcceptedAuthorizationRows;
}

/**
 * Records an accepted authorization on a card of the platform (`rows.transaction.card_id`): its
 * transaction, its operation and its job, if the token is live, the card exists, is in `currency`
 * and the acceptance is `acceptable`. Answers what it saw, so the caller can say why it wrote
 * nothing: the token's liveness and the card's currency (undefined: no such card).
 *
 * PostgreSQL: one statement for all of it (data-modifying WITH), so accepting an authorization is
 * one round trip instead of eight (token check, begin, card, three inserts, an update, commit).
 * SQLite: the same statements one after another, in the caller's unit of work or one of their own.
 * Either way, the job's workers are woken once it commits.
 */
export async function acceptAuthorization(on: Store | UnitOfWork, a: AuthorizationAcceptance): Promise<{ live: boolean; cardCurrency: string | undefined }> {
  const { transaction: t, operation, job } = a.rows;
  const live = a.tokenId === undefined ? sql<boolean>`true` : sql<boolean>`${liveTokenCount(a.tokenId)} > 0`;
  const wrote = (seen: { live: boolean; cardCurrency: string | undefined }) => {
    if (seen.live && seen.cardCurrency !== undefined && (a.currency ?? seen.cardCurrency) === seen.cardCurrency && a.acceptable) on.jobsEnqueued();
    return seen;
  };
  if (on.engine === 'postgres') {
    const currency = a.currency === undefined ? sql`true` : sql`card.currency = ${a.currency}`;
    const writable = sql`${currency} and ${a.acceptable} and (select ok from live)`;
    const row = { ...t, customer_id: '', currency: '', list_position: t.created_at };
    const { rows } = await sql<{ live: boolean; currency: string | null }>`with
      live as (select ${live} as ok),
      card as (select id, cardholder_id, currency from cards where id = ${t.card_id} and platform_id = ${t.platform_id}),
      ct as (${insertSelected('card_transactions', row, sql`card where ${writable}`, { customer_id: sql`card.cardholder_id`, currency: sql`card.currency` })} returning id),
      op as (${insertSelected('card_operations', operation, sql`ct`)} returning id),
      job as (${insertSelected('jobs', job, sql`ct`)} returning id)
      select (select ok from live) as live, (select currency from card) as currency`.execute(on.db);
    return wrote({ live: rows[0]!.live, cardCurrency: rows[0]!.currency ?? undefined });
  }
  if (!(on instanceof UnitOfWork)) return on.transaction((uow) => acceptAuthorization(uow, a));
  const db = on.db;
  const { ok } = (await sql<{ ok: number | boolean }>`select ${live} as ok`.execute(db)).rows[0]!;
  const card = await findCard(db, t.platform_id, t.card_id);
  if (Boolean(ok) && card && (a.currency ?? card.currency) === card.currency && a.acceptable) {
    await insertCardTransaction(db, { ...t, customer_id: card.cardholder_id, currency: card.currency });
    await insertCardOperation(db, operation);
    await db.insertInto('jobs').values(job).execute();
  }
  return wrote({ live: Boolean(ok), cardCurrency: card?.currency });
}

/**
 * Reads a transaction of this platform and, on PostgreSQL, locks its row until the caller's
 * transaction ends, so acceptances and landings on one transaction run one at a time.
 * (SQLite transactions are BEGIN IMMEDIATE and already serialized.)
 */
export async function lockCardTransaction(uow: UnitOfWork, platformId: string, id: string): Promise<CardTransactionRow | undefined> {
  let q = uow.db.selectFrom('card_transactions').selectAll().where('id', '=', id).where('platform_id', '=', platformId);
  if (uow.engine === 'postgres') q = q.modifyEnd(sql`for no key update`);
  return q.executeTakeFirst();
}

/**
 * Reads transactions by id, each with its cardholder's platformCustomerId, and on PostgreSQL
 * locks their rows until the caller's transaction ends, in id order (two transactions locking
 * overlapping sets cannot deadlock on them). The caller checks each one's platform.
 */
export async function lockCardTransactions(uow: UnitOfWork, ids: readonly string[]): Promise<CardTransactionView[]> {
  if (ids.length === 0) return [];
  return lockedTransactions(uow, ids).execute();
}

function lockedTransactions(uow: UnitOfWork, ids: readonly string[]) {
  let q = uow.db
    .selectFrom('card_transactions as t')
    .innerJoin('customers as c', 'c.id', 't.customer_id')
    .selectAll('t')
    .select('c.platform_customer_id')
    .where('t.id', 'in', ids)
    .orderBy('t.id');
  if (uow.engine === 'postgres') q = q.modifyEnd(sql`for no key update of t`);
  return q;
}

/** What a landing reads of its batch before it locks any account (see readLandingBatch). */
export interface LandingBatch {
  /** Locked as lockCardTransactions locks them, in id order. */
  transactions: CardTransactionView[];
  /** Theirs, by transaction then sequence (as operationsOf). */
  operations: CardOperationRow[];
  /** Their cards (whatever their platform: the caller checks). */
  cards: CardRow[];
  /**
   * PostgreSQL: the funding sources of the cards of its PENDING transactions (those it decides),
   * locked (after the transactions, in id order, as lockAccounts locks them). SQLite: none.
   */
  accounts: InternalAccountRow[];
}

/**
 * The transactions of a landing batch (locked, as lockCardTransactions), their operations and
 * their cards. PostgreSQL: one statement, each part a JSON array (one round trip where three were
 * sent one after the other, each waiting its turn on a busy event loop while the batch's landings
 * waited), which also locks the funding sources of the transactions it will decide (`accounts`):
 * a round trip fewer per batch, and none between the account's lock and the batch's COMMIT but
 * the one its decisions need. SQLite: the three statements.
 */
export async function readLandingBatch(uow: UnitOfWork, ids: readonly string[]): Promise<LandingBatch> {
  if (ids.length === 0) return { transactions: [], operations: [], cards: [], accounts: [] };
  if (uow.engine !== 'postgres') {
    const transactions = await lockCardTransactions(uow, ids);
    const operations = await operationsOf(uow.db, [...ids]);
    const cards = await cardsByIds(uow.db, [...new Set(transactions.map((t) => t.card_id))]);
    return { transactions, operations, cards, accounts: [] };
  }
  const { rows } = await sql<{ t: CardTransactionView[] | null; o: CardOperationRow[] | null; c: CardRow[] | null; a: InternalAccountRow[] | null }>`with
    t as (${lockedTransactions(uow, ids)}),
    o as (select * from card_operations where card_transaction_id in (select id from t)),
    c as (select * from cards where id in (select card_id from t)),
    a as (select * from internal_accounts where id in (
        select jsonb_array_elements_text(c.funding_sources::jsonb) from c where c.id in (select card_id from t where t.status = 'PENDING'))
      order by id for no key update)
    select (select json_agg(t order by t.id) from t) as t,
           (select json_agg(o order by o.card_transaction_id, o.seq) from o) as o,
           (select json_agg(c) from c) as c,
           (select json_agg(a order by a.id) from a) as a`.execute(uow.db);
  const row = rows[0]!;
  return { transactions: row.t ?? [], operations: row.o ?? [], cards: row.c ?? [], accounts: row.a ?? [] };
}

/** Cards by id, whatever their platform (the caller checks). */
export async function cardsByIds(db: Executor, ids: readonly string[]): Promise<CardRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('cards').selectAll().where('id', 'in', ids).execute();
}

/** The columns of a transaction that landing changes. */
export type CardTransactionChanges = Pick<CardTransactionRow, 'id'> & Omit<CardTransactionRow, 'id' | 'platform_id' | 'card_id' | 'customer_id' | 'merchant' | 'currency' | 'issuer_transaction_token' | 'list_position' | 'direction' | 'opened_by'>;

/** Writes each transaction's changed columns (see updateRows: one statement on PostgreSQL). */
export async function updateCardTransactions(uow: UnitOfWork, rows: readonly CardTransactionChanges[]): Promise<void> {
  await updateRows<CardTransactionChanges>(uow, 'card_transactions', {
    status: 'text',
    account_id: 'text',
    authorized_amount: 'bigint',
    settled_amount: 'bigint',
    refunded_amount: 'bigint',
    settlement_count: 'integer',
    refund_count: 'integer',
    last_return_amount: 'bigint',
    last_return_prior_status: 'text',
    decline_reason: 'text',
    next_seq: 'integer',
    authorized_at: 'bigint',
    last_event_at: 'bigint',
    created_at: 'bigint',
    updated_at: 'bigint',
  }, rows);
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

export async function insertCardOperation(db: Executor, row: CardOperationRow): Promise<void> {
  await db.insertInto('card_operations').values(row).execute();
}

/** A write nobody reads (see UnitOfWork.write). */
export async function insertCardOperations(uow: UnitOfWork, rows: readonly CardOperationRow[]): Promise<void> {
  if (rows.length > 0) await uow.write(uow.db.insertInto('card_operations').values([...rows]));
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

export type FinishedOperation = Pick<CardOperationRow, 'id' | 'amount' | 'reason'> & { status: Exclude<CardOperationStatus, 'PENDING'>; processed_at: number };

/** Ends operations that are still PENDING (see updateRows: one statement on PostgreSQL); one already ended is left alone. */
export async function finishCardOperations(uow: UnitOfWork, rows: readonly FinishedOperation[]): Promise<void> {
  await updateRows<FinishedOperation>(uow, 'card_operations', { status: 'text', amount: 'bigint', reason: 'text', processed_at: 'bigint' }, rows, {
    column: 'status',
    equals: 'PENDING',
  });
}

/** Advances `next_seq` of these transactions by one: each was just given one operation. */
export async function bumpNextSeq(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await db.updateTable('card_transactions').set({ next_seq: sql<number>`next_seq + 1` }).where('id', 'in', ids).execute();
}
