// Written once per engine: assignListPositions (PostgreSQL places every table in one statement).
import { sql } from 'kysely';
import type { Executor } from './store.js';
import type { UnitOfWork } from './unit-of-work.js';

/** The tables whose rows a platform's lists show, ordered by (list_position, id). */
export type ListedTable = 'customers' | 'cards' | 'card_transactions' | 'api_tokens' | 'webhook_events' | 'internal_accounts' | 'verifications' | 'external_accounts' | 'documents' | 'payment_transactions';

/** Rows a unit of work has put on platforms' lists: by platform, then table. */
export type ListedRows = Map<string, Map<ListedTable, string[]>>;

/** Takes the platform's next position (see assignListPositions); no row for an unknown platform. */
const nextPosition = (platformId: string, now: number) => sql<{ list_clock: number | string }>`
  update platforms
  set list_clock = case when list_clock >= ${now} then list_clock + 1 else ${now} end
  where id = ${platformId}
  returning list_clock`;

/**
 * Gives the rows a unit of work put on its platforms' lists their position, as the last
 * statements before its commit. The position is `now`, or one past the platform's last position
 * when that is not earlier, taken by updating the platform's row: that row's lock is held until
 * the commit, so a position is only taken once every transaction that took one before on the
 * platform has committed or rolled back. Positions therefore become visible in ascending order, and
 * a client following `nextCursor` never passes a row that commits later (PostgreSQL with any number
 * of processes; SQLite's single writer commits in the same order). Rows of one transaction share
 * a position (they become visible together; ties go by id). Taking it last holds the lock for this
 * and the commit only; platforms are taken in id order, so two transactions never deadlock on them.
 */
export async function assignListPositions(uow: UnitOfWork, listed: ListedRows, now: number): Promise<void> {
  for (const platformId of [...listed.keys()].sort()) {
    const tables = [...listed.get(platformId)!];
    const clock = nextPosition(platformId, now);
    if (uow.engine === 'postgres') {
      // One round trip: the clock and every table's rows in one statement (a row of an unknown
      // platform is on nobody's list, and keeps its provisional position).
      const place = tables.map(
        ([table, ids], i) =>
          sql`${sql.raw(`placed_${i}`)} as (update ${sql.table(table)} set list_position = (select list_clock from clock) where id in (${sql.join(ids)}) and exists (select 1 from clock))`,
      );
      // Sent with COMMIT, in its round trip (see UnitOfWork.write).
      await uow.write(sql`with clock as (${clock}), ${sql.join(place)} select 1`);
      continue;
    }
    const r = await clock.execute(uow.db);
    if (r.rows[0] === undefined) continue;
    const position = Number(r.rows[0].list_clock);
    for (const [table, ids] of tables) {
      await sql`update ${sql.table(table)} set list_position = ${position} where id in (${sql.join(ids)})`.execute(uow.db);
    }
  }
}

/** After a bulk load that wrote positions itself (up to `position`): later rows are placed after them. */
export async function moveListClockTo(db: Executor, platformId: string, position: number): Promise<void> {
  await sql`update platforms set list_clock = ${position} where id = ${platformId} and list_clock < ${position}`.execute(db);
}

/**
 * Inserts a row that a platform list shows, with its creation time as provisional position, and
 * puts it on the list when the unit of work commits (UnitOfWork.listAtCommit).
 */
export async function insertListed<R extends { id: string; platform_id: string; created_at: number }>(
  uow: UnitOfWork,
  table: ListedTable,
  row: R,
  insert: (db: Executor, row: R & { list_position: number }) => Promise<unknown>,
): Promise<void> {
  await insert(uow.db, { ...row, list_position: row.created_at });
  uow.listAtCommit(row.platform_id, table, row.id);
}
