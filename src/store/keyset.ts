import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { PageQuery, Position } from './page.js';

/**
 * The column lists order by: `list_position`, given at commit in commit order (store/list-clock.ts),
 * so a row never becomes visible behind a position a client has already paged past. Owners order
 * by `created_at`, stamped in commit order per customer (countNewOwner).
 */
export type PositionColumn = 'list_position' | 'created_at';

/** Rows after a position in (position, id) order, optionally of a table alias; both engines support row values. */
export function afterPosition(after: Position, table?: string, position: PositionColumn = 'list_position'): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  return sql<boolean>`(${column(position)}, ${column('id')}) > (${after.createdAt}, ${after.id})`;
}

/**
 * One page of a filtered table in (list_position, id) order: up to limit + 1 rows after the cursor's
 * position (the extra row says whether more follow), and the count of every row of the filter.
 */
export async function keysetPage<Row, DB, TB extends keyof DB>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  q: PageQuery,
): Promise<{ rows: Row[]; total: number }> {
  const page = q.after ? filtered.where(afterPosition(q.after)) : filtered;
  const rows = await page.selectAll().orderBy(sql`list_position`).orderBy(sql`id`).limit(q.limit + 1).execute();
  const counted = (await filtered.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow()) as { total: number | string };
  return { rows: rows as Row[], total: Number(counted.total) };
}
