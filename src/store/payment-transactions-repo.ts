import { sql } from 'kysely';
import { updateRows } from './bulk.js';
import { afterPosition, keysetOrder } from './keyset.js';
import { insertListed } from './list-clock.js';
import type { PageQuery } from './page.js';
import type { Executor } from './store.js';
import { externalAccountQuery } from './external-accounts-repo.js';
import type { CustomerRow } from './tables/customers.js';
import type { ExternalAccountRow } from './tables/external-accounts.js';
import type { InternalAccountRow, PlatformInternalAccountRow } from './tables/internal-accounts.js';
import type { PaymentTransactionRow } from './tables/payment-transactions.js';
import type { UnitOfWork } from './unit-of-work.js';

/** A payment transaction with its customer's platform-specific id (null for the platform's own), as every read renders it. */
export type PaymentTransactionView = PaymentTransactionRow & { platform_customer_id: string | null };

/** Inserts a transfer, placed on the platform's lists (beside card transactions) when the unit of work commits. */
export async function insertPaymentTransaction(uow: UnitOfWork, row: PaymentTransactionRow): Promise<void> {
  // Nothing reads its answer: it goes out with the unit of work's next statement (see UnitOfWork.write).
  await insertListed(uow, 'payment_transactions', row, (db, r) => uow.write(db.insertInto('payment_transactions').values(r)));
}

function visible(db: Executor, platformId: string) {
  return db.selectFrom('payment_transactions as t').leftJoin('customers as c', 'c.id', 't.customer_id').where('t.platform_id', '=', platformId);
}

/** One of this platform's payment transactions; another platform's is not found. */
export async function findPaymentTransaction(db: Executor, platformId: string, id: string): Promise<PaymentTransactionView | undefined> {
  return visible(db, platformId).selectAll('t').select('c.platform_customer_id').where('t.id', '=', id).executeTakeFirst();
}

/** findPaymentTransaction, its row locked until the unit of work ends on PostgreSQL (SQLite serializes writers already). */
export async function lockPaymentTransaction(uow: UnitOfWork, platformId: string, id: string): Promise<PaymentTransactionView | undefined> {
  const q = visible(uow.db, platformId).selectAll('t').select('c.platform_customer_id').where('t.id', '=', id);
  return (uow.engine === 'postgres' ? q.modifyEnd(sql`for no key update of t`) : q).executeTakeFirst();
}

/**
 * lockPaymentTransaction for many, in one statement, whatever their platform (the caller checks);
 * locked in id order, so two callers cannot deadlock on them. On PostgreSQL the same statement
 * reads (without locking them) the customers' internal accounts of those transactions, by id:
 * what a landing renders their balance events from when it writes its postings at commit
 * (postAllAtCommit). SQLite answers none.
 */
export async function lockPaymentTransactions(uow: UnitOfWork, ids: readonly string[]): Promise<{ rows: PaymentTransactionView[]; accounts: Map<string, InternalAccountRow> }> {
  if (ids.length === 0) return { rows: [], accounts: new Map() };
  const q = uow.db.selectFrom('payment_transactions as t').leftJoin('customers as c', 'c.id', 't.customer_id').selectAll('t').select('c.platform_customer_id').where('t.id', 'in', ids).orderBy('t.id');
  if (uow.engine !== 'postgres') return { rows: await q.execute(), accounts: new Map() };
  const withAccount = q
    .leftJoin('internal_accounts as a', (j) => j.onRef('a.id', '=', 't.internal_account_id').on('t.customer_id', 'is not', null))
    .select(sql<InternalAccountRow | null>`row_to_json(a)`.as('account'))
    .modifyEnd(sql`for no key update of t`);
  const accounts = new Map<string, InternalAccountRow>();
  const rows = (await withAccount.execute()).map(({ account, ...row }) => {
    if (account) accounts.set(account.id, account);
    return row;
  });
  return { rows, accounts };
}

/** The columns a transaction's landing changes. */
export type PaymentTransactionChange = Pick<PaymentTransactionRow, 'id' | 'status' | 'failure_reason' | 'refund' | 'settled_at' | 'updated_at'>;

/** Writes each transaction's landing (see updateRows: one statement on PostgreSQL); one id at most once. */
export async function updatePaymentTransactions(uow: UnitOfWork, rows: readonly PaymentTransactionChange[]): Promise<void> {
  await updateRows<PaymentTransactionChange>(uow, 'payment_transactions', { status: 'text', failure_reason: 'text', refund: 'text', settled_at: 'bigint', updated_at: 'bigint' }, rows);
}

export async function updatePaymentTransaction(
  db: Executor,
  id: string,
  change: Partial<Pick<PaymentTransactionRow, 'status' | 'failure_reason' | 'refund' | 'settled_at' | 'receipt_delivery_confirmed_at' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('payment_transactions').set(change).where('id', '=', id).execute();
}

export interface PaymentTransactionFilters {
  /** A customer's transfers, or null for those of the platform's own accounts. */
  customerId?: string | null | undefined;
  platformCustomerId?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  /** Matches the external account's identifier on either side. */
  accountIdentifier?: string | undefined;
  /** The sender's identifier: the external account of an INCOMING transfer. */
  senderAccountIdentifier?: string | undefined;
  /** The receiver's identifier: the external account of an OUTGOING transfer. */
  receiverAccountIdentifier?: string | undefined;
  reference?: string | undefined;
  createdFrom?: number | undefined;
  createdTo?: number | undefined;
  matchesNothing?: boolean;
}

/** Up to limit + 1 transfers after the page's position in (list_position, id) order, and the count of every one of the filter. */
export async function listPaymentTransactions(db: Executor, platformId: string, q: PageQuery, f: PaymentTransactionFilters): Promise<{ rows: PaymentTransactionView[]; total: number }> {
  let base = visible(db, platformId);
  if (f.customerId === null) base = base.where('t.customer_id', 'is', null);
  else if (f.customerId !== undefined) base = base.where('t.customer_id', '=', f.customerId);
  if (f.platformCustomerId !== undefined) base = base.where('c.platform_customer_id', '=', f.platformCustomerId);
  if (f.status !== undefined) base = base.where('t.status', '=', f.status);
  if (f.type !== undefined) base = base.where('t.type', '=', f.type);
  if (f.accountIdentifier !== undefined) base = base.where('t.external_identifier', '=', f.accountIdentifier);
  if (f.senderAccountIdentifier !== undefined) base = base.where('t.type', '=', 'INCOMING').where('t.external_identifier', '=', f.senderAccountIdentifier);
  if (f.receiverAccountIdentifier !== undefined) base = base.where('t.type', '=', 'OUTGOING').where('t.external_identifier', '=', f.receiverAccountIdentifier);
  if (f.reference !== undefined) base = base.where('t.reference', '=', f.reference);
  if (f.createdFrom !== undefined) base = base.where('t.created_at', '>=', f.createdFrom);
  if (f.createdTo !== undefined) base = base.where('t.created_at', '<=', f.createdTo);
  if (f.matchesNothing) base = base.where(sql<boolean>`1 = 0`);
  let page = base.selectAll('t').select('c.platform_customer_id');
  if (q.after) page = page.where(afterPosition(q.after, 't', q.order));
  const rows = await keysetOrder(page, q.order, 't').limit(q.limit + 1).execute();
  const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

/** What a transfer reads before it writes (see readTransferParties). */
export interface TransferParties {
  /** The internal account: a customer's, else one of the platform's own (customer_id null). */
  internal: InternalAccountRow | (PlatformInternalAccountRow & { customer_id: null }) | undefined;
  /** The external account, live, whoever owns it (the caller checks). */
  external: ExternalAccountRow | undefined;
  /** The customer owning a customer's internal account. */
  customer: CustomerRow | undefined;
}

/**
 * The internal account, the external account and the internal account's customer, all of this
 * platform, read without locks. PostgreSQL: one statement, each a JSON object (three round trips
 * were three turns of a busy event loop per transfer); SQLite: the reads one after another.
 */
export async function readTransferParties(uow: UnitOfWork, platformId: string, internalId: string, externalId: string): Promise<TransferParties> {
  const customers = uow.db.selectFrom('internal_accounts').selectAll().where('id', '=', internalId).where('platform_id', '=', platformId);
  const own = uow.db.selectFrom('platform_internal_accounts').selectAll().where('id', '=', internalId).where('platform_id', '=', platformId);
  const external = externalAccountQuery(uow.db, platformId, externalId, 'anyone');
  // The owner of a customer's internal account (none for one of the platform's own).
  const customer = uow.db.selectFrom('customers').selectAll().where('platform_id', '=', platformId).where('id', '=', (eb) => eb.selectFrom('internal_accounts').select('customer_id').where('id', '=', internalId).where('platform_id', '=', platformId));
  if (uow.engine !== 'postgres') {
    const account = await customers.executeTakeFirst();
    const internal = account ?? (await own.executeTakeFirst().then((o) => o && { ...o, customer_id: null }));
    return { internal, external: await external.executeTakeFirst(), customer: account && (await customer.executeTakeFirst()) };
  }
  const { rows } = await sql<{ i: InternalAccountRow | null; p: PlatformInternalAccountRow | null; x: ExternalAccountRow | null; c: CustomerRow | null }>`select
    (select row_to_json(r) from (${customers}) r) as i,
    (select row_to_json(r) from (${own}) r) as p,
    (select row_to_json(r) from (${external}) r) as x,
    (select row_to_json(r) from (${customer}) r) as c`.execute(uow.db);
  const row = rows[0]!;
  return { internal: row.i ?? (row.p ? { ...row.p, customer_id: null } : undefined), external: row.x ?? undefined, customer: (row.i && row.c) ?? undefined };
}
