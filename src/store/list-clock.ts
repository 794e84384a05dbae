import { PostgresAdapter, sql } from 'kysely';
import type { Executor, Trx } from './store.js';

/** The tables whose rows a platform's lists show, ordered by (list_position, id). */
export type ListedTable = 'customers' | 'cards' | 'card_transactions' | 'api_tokens' | 'webhook_events' | 'internal_accounts';

/** Takes the platform's next position (see assignListPositions); no row for an unknown platform. */
const nextPosition = (platformId: string, now: number) => sql<{ list_clock: number | string }>`
  update platforms
  set list_clock = case when list_clock >= ${now} then list_clock + 1 else ${now} end
  where id = ${platformId}
  returning list_clock`;

/** Rows each open transaction (or savepoint) has put on a platform's lists, placed when it commits. */
const pending = new WeakMap<Trx, Map<string, Map<ListedTable, string[]>>>();

/**
 * Puts a row that `trx` inserted (or made visible) on its platform's lists when `trx` commits:
 * {@link assignListPositions} gives it its position then. Until that runs, the row keeps the
 * provisional position it was written with (its creation time).
 */
export function listAtCommit(trx: Trx, platformId: string, table: ListedTable, id: string): void {
  let byPlatform = pending.get(trx);
  if (!byPlatform) pending.set(trx, (byPlatform = new Map()));
  let byTable = byPlatform.get(platformId);
  if (!byTable) byPlatform.set(platformId, (byTable = new Map()));
  const ids = byTable.get(table);
  if (ids) ids.push(id);
  else byTable.set(table, [id]);
}

/** A released savepoint's rows join its transaction's (a rolled-back savepoint's are simply dropped). */
export function carryListPositions(savepoint: Trx, trx: Trx): void {
  const byPlatform = pending.get(savepoint);
  pending.delete(savepoint);
  if (!byPlatform) return;
  for (const [platformId, byTable] of byPlatform) for (const [table, ids] of byTable) for (const id of ids) listAtCommit(trx, platformId, table, id);
}

/**
 * Gives the rows this transaction put on its platforms' lists their position, as the last
 * statements before its commit. The position is `now`, or one past the platform's last position
 * when that is not earlier, taken by updating the platform's row: that row's lock is held until
 * the commit, so a position is only taken once every transaction that took one before on the
 * platform has committed or rolled back. Positions therefore become visible in ascending order, and
 * a client following `nextCursor` never passes a row that commits later (PostgreSQL with any number
 * of processes; SQLite's single writer commits in the same order). Rows of one transaction share
 * a position (they become visible together; ties go by id). Taking it last holds the lock for this
 * and the commit only; platforms are taken in id order, so two transactions never deadlock on them.
 */
export async function assignListPositions(trx: Trx, now = Date.now()): Promise<void> {
  const byPlatform = pending.get(trx);
  if (!byPlatform) return;
  pending.delete(trx);
  const postgres = trx.getExecutor().adapter instanceof PostgresAdapter;
  for (const platformId of [...byPlatform.keys()].sort()) {
    const tables = [...byPlatform.get(platformId)!];
    const clock = nextPosition(platformId, now);
    if (postgres) {
      // One round trip: the clock and every table's rows in one statement (a row of an unknown
      // platform is on nobody's list, and keeps its provisional position).
      const place = tables.map(
        ([table, ids], i) =>
          sql`${sql.raw(`placed_${i}`)} as (update ${sql.table(table)} set list_position = (select list_clock from clock) where id in (${sql.join(ids)}) and exists (select 1 from clock))`,
      );
      await sql`with clock as (${clock}), ${sql.join(place)} select 1`.execute(trx);
      continue;
    }
    const r = await clock.execute(trx);
    if (r.rows[0] === undefined) continue;
    const position = Number(r.rows[0].list_clock);
    for (const [table, ids] of tables) {
      await sql`update ${sql.table(table)} set list_position = ${position} where id in (${sql.join(ids)})`.execute(trx);
    }
  }
}

/** After a bulk load that wrote positions itself (up to `position`): later rows are placed after them. */
export async function moveListClockTo(db: Executor, platformId: string, position: number): Promise<void> {
  await sql`update platforms set list_clock = ${position} where id = ${platformId} and list_clock < ${position}`.execute(db);
}

/**
 * Inserts a row that a platform list shows. In `db` if it is a transaction (whose owner assigns
 * positions before committing, as Store.transaction does), the row is placed when that commits;
 * otherwise in a transaction of its own that takes the position first and inserts the row with it
 * (one write of the row, the platform's lock held for the insert and the commit).
 */
export async function insertListed<R extends { id: string; platform_id: string; created_at: number }>(
  db: Executor,
  table: ListedTable,
  row: R,
  insert: (trx: Trx, row: R & { list_position: number }) => Promise<unknown>,
): Promise<void> {
  if (db.isTransaction) {
    const trx = db as Trx;
    await insert(trx, { ...row, list_position: row.created_at });
    listAtCommit(trx, row.platform_id, table, row.id);
    return;
  }
  await db.transaction().execute(async (trx) => {
    const taken = (await nextPosition(row.platform_id, Date.now()).execute(trx)).rows[0];
    await insert(trx, { ...row, list_position: taken === undefined ? row.created_at : Number(taken.list_clock) });
  });
}
