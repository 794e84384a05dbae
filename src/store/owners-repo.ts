// Written once per engine: the owner pages (sqlitePages, postgresPages) and lockOwner.
import { sql } from 'kysely';
import { batchedLookup } from './batched-lookup.js';
import { afterPosition } from './keyset.js';
import { PreparedRead } from './prepared.js';
import { liveTokenCount } from './tokens-repo.js';
import type { Executor, Store } from './store.js';
import type { BeneficialOwnerRow } from './tables/beneficial-owners.js';
import type { UnitOfWork } from './unit-of-work.js';

/** A page as read: the customer's facts and the page's owners already joined into JSON list text. */
export interface OwnerPageRead {
  customerType: string;
  ownerCount: number;
  /** The customer's owners' version the page was read at (see migration 015). */
  version: number;
  /** The page's owners' JSON objects in page order, UTF-8, separated by ",\n" (valid JSON between items; empty for none). */
  ownersJson: Buffer;
  /** When more owners follow the page: the page's last owner's JSON, whose position the next page starts after. */
  lastOwnerJson?: Buffer;
}

interface PageRow {
  live: number;
  customer_type: string;
  owner_count: number;
  owners_version: number | string;
  n: number;
  /** UTF-8 bytes on SQLite, text on PostgreSQL (see pageQuery). */
  bodies: Buffer | string | null;
}

interface PageArgs extends Record<string, unknown> {
  /** The token the request authenticated with: the page is read only while it is live. */
  tokenId: string;
  platformId: string;
  customerId: string;
  afterCreatedAt: number;
  afterId: string;
  limit: number;
}

/**
 * Between two owners' JSON in the aggregated text. A raw newline never occurs inside JSON.stringify
 * output (control characters are escaped in strings), so the last one marks the last owner; and
 * ",\n" is still valid JSON between array items.
 */
const SEPARATOR = ',\n';
const SEPARATOR_BYTES = Buffer.from(SEPARATOR);
const EMPTY = Buffer.alloc(0);

/**
 * The page in one statement, so the count and the rows come from one snapshot: the customer
 * (checked against the platform) and up to limit + 1 owners after the position, read as one range
 * of the (customer_id, created_at, id) key and aggregated by the database into one string (the
 * owners' JSON), so the application handles one row instead of limit + 1. The aggregate is ordered
 * itself: the order of an aggregate's input is otherwise undefined, whatever the subquery's ORDER
 * BY. On SQLite (3.44+) that sorts the page's bodies once more: 15 -> 24 us per statement at limit
 * 20, 32 -> 80 us at limit 100 (1,000 owners of one customer).
 *
 * The same statement confirms the request's token is live (not revoked): with the token service's
 * memory of verified secrets, a list request costs one statement instead of two. When the customer
 * is not the platform's no row comes back, so nothing says whether the token is live: the error
 * answer confirms it (the error handler, for a principal that was not read this request).
 *
 * SQLite's form, one page per statement (no round trip to save); PostgreSQL reads the pages asked
 * for in one turn of the event loop together (postgresPages).
 */
const sqlitePageQuery = (a: PageArgs, fromStart: boolean) => {
  // The first page has no lower bound: a plain prefix seek, without the row-value comparison (about
  // an eighth of the statement's time on SQLite).
  const after = fromStart ? sql`` : sql`and ${afterPosition({ createdAt: a.afterCreatedAt, id: a.afterId }, undefined, 'asc', 'created_at')}`;
  return sql<PageRow>`
    select ${liveTokenCount(a.tokenId)} as live,
      c.customer_type, c.owner_count, c.owners_version, p.n, p.bodies
    from customers c, (
      select count(*) as n, cast(group_concat(body, ${sql.lit(SEPARATOR)} order by created_at, id) as blob) as bodies
      from (
        select body, created_at, id from beneficial_owners
        where customer_id = ${a.customerId} ${after}
        order by created_at, id
        limit ${a.limit} + 1
      ) page
    ) p
    where c.id = ${a.customerId} and c.platform_id = ${a.platformId}`;
};

/**
 * PostgreSQL: the pages asked for in one turn of the event loop in one statement (each request's
 * arguments a row of typed arrays, each page the SQLite form's as a lateral subquery), and the
 * version checks of one turn in another, so a round trip (most of a list request's cost on this
 * engine) serves every request of the turn. Measured, owner list of 100,000 owners, pages read
 * anew (OWNER_PAGE_CACHE_BYTES=0), 64 connections: 0.13 -> 0.24 of the Fastify floor (different
 * runs; each ratio from its own run). The bodies come back as text, not bytea: bytea travels
 * hex-encoded, twice the bytes to send and to decode (a 20-owner page read 1.3x faster as text).
 */
function postgresPages(store: Store): PageSource {
  const pages = batchedLookup(async (keys: string[]) => {
    const asked = keys.map((k) => JSON.parse(k) as [string, string, string, number, string, number]);
    const col = <T>(n: number) => asked.map((a) => a[n] as T);
    const rows = await store.read(
      sql<PageRow & { i: number | string }>`
        select r.i, ${liveTokenCount(sql.ref('r.t'))} as live,
          c.customer_type, c.owner_count, c.owners_version, p.n, p.bodies
        from unnest(${col(0)}::text[], ${col(1)}::text[], ${col(2)}::text[], ${col(3)}::bigint[], ${col(4)}::text[], ${col(5)}::integer[])
          with ordinality as r(t, pl, cu, ac, ai, l, i)
        join customers c on c.id = r.cu and c.platform_id = r.pl
        cross join lateral (
          select count(*) as n, string_agg(body, ${sql.lit(SEPARATOR)} order by created_at, id) as bodies
          from (
            select body, created_at, id from beneficial_owners
            where customer_id = r.cu and (created_at, id) > (r.ac, r.ai)
            order by created_at, id
            limit r.l + 1
          ) page
        ) p`.compile(store.db),
    );
    return new Map(rows.map((r) => [keys[Number(r.i) - 1]!, r]));
  });
  const versions = batchedLookup(async (keys: string[]) => {
    const asked = keys.map((k) => JSON.parse(k) as [string, string, string]);
    const col = (n: number) => asked.map((a) => a[n]!);
    const rows = await store.read(
      sql<{ i: number | string; live: number; owners_version: number | string }>`
        select r.i, ${liveTokenCount(sql.ref('r.t'))} as live, c.owners_version
        from unnest(${col(0)}::text[], ${col(1)}::text[], ${col(2)}::text[]) with ordinality as r(t, pl, cu, i)
        join customers c on c.id = r.cu and c.platform_id = r.pl`.compile(store.db),
    );
    return new Map(rows.map((r) => [keys[Number(r.i) - 1]!, { tokenLive: Number(r.live) > 0, version: Number(r.owners_version) }]));
  });
  return {
    // Before every owner, (created_at, id) > (-1, ''): the first page is the same statement.
    page: (a) => pages(JSON.stringify([a.tokenId, a.platformId, a.customerId, a.afterCreatedAt, a.afterId, a.limit])),
    version: (a) => versions(JSON.stringify([a.tokenId, a.platformId, a.customerId])),
  };
}

/** SQLite: each page and each check a prepared statement of its own (store.read runs a turn's reads in one read transaction). */
function sqlitePages(store: Store): PageSource {
  const sentinel: PageArgs = { tokenId: '\u0000token', platformId: '\u0000platform', customerId: '\u0000customer', afterCreatedAt: -101, afterId: '\u0000after', limit: -102 };
  const first = new PreparedRead(store, (db, a) => sqlitePageQuery(a, true).compile(db), sentinel);
  const next = new PreparedRead(store, (db, a) => sqlitePageQuery(a, false).compile(db), sentinel);
  const version = new PreparedRead(store, (db, a: VersionArgs) => versionQuery(a).compile(db), { tokenId: '\u0000token', platformId: '\u0000platform', customerId: '\u0000customer' });
  return {
    page: (a) => (a.afterCreatedAt < 0 ? first : next).first(a),
    version: async (a) => {
      const row = await version.first(a);
      return row && { tokenLive: Number(row.live) > 0, version: Number(row.owners_version) };
    },
  };
}

export async function insertOwner(trx: Executor, row: BeneficialOwnerRow): Promise<void> {
  await trx.insertInto('beneficial_owners').values(row).execute();
}

/** Many owners in one statement; the caller chooses the batch size and the transaction. */
export async function insertOwners(trx: Executor, rows: BeneficialOwnerRow[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('beneficial_owners').values(rows).execute();
}

const ownerOf = (db: Executor, platformId: string, id: string) => db.selectFrom('beneficial_owners').selectAll().where('id', '=', id).where('platform_id', '=', platformId);

/** An owner of this platform; another platform's owner is not found. */
export async function findOwner(db: Executor, platformId: string, id: string): Promise<BeneficialOwnerRow | undefined> {
  return ownerOf(db, platformId, id).executeTakeFirst();
}

/** findOwner, to decide a change of the owner: on PostgreSQL its row stays locked until the unit of work ends. */
export async function lockOwner(uow: UnitOfWork, platformId: string, id: string): Promise<BeneficialOwnerRow | undefined> {
  const q = ownerOf(uow.db, platformId, id);
  return (uow.engine === 'postgres' ? q.forNoKeyUpdate() : q).executeTakeFirst();
}

/** Writes an owner's new body and moves its customer's owners' version (see migration 015), in the caller's transaction. */
export async function updateOwner(trx: Executor, owner: Pick<BeneficialOwnerRow, 'id' | 'customer_id'>, body: string, updatedAt: number): Promise<void> {
  await trx.updateTable('beneficial_owners').set({ body, updated_at: updatedAt }).where('id', '=', owner.id).execute();
  await trx.updateTable('customers').set((eb) => ({ owners_version: eb('owners_version', '+', 1) })).where('id', '=', owner.customer_id).execute();
}

interface VersionArgs extends Record<string, unknown> {
  tokenId: string;
  platformId: string;
  customerId: string;
}

/** Whether the token is live and the customer's owners' version; no row when the customer is not the platform's. */
const versionQuery = (a: VersionArgs) => sql<{ live: number; owners_version: number | string }>`
  select ${liveTokenCount(a.tokenId)} as live, c.owners_version
  from customers c where c.id = ${a.customerId} and c.platform_id = ${a.platformId}`;

export interface OwnersVersion {
  tokenLive: boolean;
  version: number;
}

interface PageSource {
  page(a: PageArgs): Promise<PageRow | undefined>;
  version(a: VersionArgs): Promise<OwnersVersion | undefined>;
}

/** Reads owner pages and checks owners' versions, each engine its own way (sqlitePages, postgresPages). */
export class OwnerPageReader {
  private readonly source: PageSource;

  constructor(store: Store) {
    this.source = store.engine === 'postgres' ? postgresPages(store) : sqlitePages(store);
  }

  /**
   * Whether the token is live and the version of the customer's owners now; undefined when the
   * customer is not the platform's. On PostgreSQL the checks asked for in one turn of the event loop
   * are one statement.
   */
  version(args: VersionArgs): Promise<OwnersVersion | undefined> {
    return this.source.version(args);
  }

  /**
   * Up to `limit` owners after the position (a negative `afterCreatedAt` means from the start, as
   * every owner's creation time is positive) and whether the token is live; undefined when the
   * customer is not the platform's.
   */
  async read(args: PageArgs): Promise<{ tokenLive: boolean; page: OwnerPageRead } | undefined> {
    const row = await this.source.page(args);
    if (!row) return undefined;
    const bodies = typeof row.bodies === 'string' ? Buffer.from(row.bodies) : (row.bodies ?? EMPTY);
    const page = this.cut(args.limit, { customerType: row.customer_type, ownerCount: Number(row.owner_count), version: Number(row.owners_version), ownersJson: bodies }, Number(row.n));
    return { tokenLive: Number(row.live) > 0, page };
  }

  /** With more than `limit` owners read, drops the extra one and keeps the page's last owner for the cursor. */
  private cut(limit: number, read: OwnerPageRead, n: number): OwnerPageRead {
    if (n <= limit) return read;
    const page = read.ownersJson.subarray(0, read.ownersJson.lastIndexOf(SEPARATOR_BYTES));
    const lastStart = page.lastIndexOf(SEPARATOR_BYTES);
    read.ownersJson = page;
    read.lastOwnerJson = page.subarray(lastStart < 0 ? 0 : lastStart + SEPARATOR_BYTES.length);
    return read;
  }
}

/** Every owner of the customer, oldest first: what a verification checks and resolves. */
export async function ownersOfCustomer(db: Executor, platformId: string, customerId: string): Promise<BeneficialOwnerRow[]> {
  return db.selectFrom('beneficial_owners').selectAll().where('customer_id', '=', customerId).where('platform_id', '=', platformId).orderBy('created_at').orderBy('id').execute();
}
