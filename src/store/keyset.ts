import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { PageQuery, Position, SortOrder } from './page.js';

/**
 * The column lists order by: `list_position`, given at commit in commit order (store/list-clock.ts),
 * so a row never becomes visible behind a position a client has already paged past. Owners order
 * by `created_at`, stamped in commit order per customer (countNewOwner).
 */
export type PositionColumn = 'list_position' | 'created_at';

/** Rows after a position in (position, id) order (before it when descending), optionally of a table alias; both engines support row values. */
export function afterPosition(after: Position, table?: string, order: SortOrder = 'asc', position: PositionColumn = 'list_position'): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  const beyond = order === 'desc' ? sql.raw('<') : sql.raw('>');
  return sql<boolean>`(${column(position)}, ${column('id')}) ${beyond} (${after.createdAt}, ${after.id})`;
}

/** The keyset order of a page: (position, id), ascending or descending. */
export function keysetOrder<Q extends SelectQueryBuilder<any, any, any>>(query: Q, order: SortOrder = 'asc', table?: string, position: PositionColumn = 'list_position'): Q {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  const direction = sql.raw(order === 'desc' ? 'desc' : 'asc');
  return query.orderBy(sql`${column(position)} ${direction}`).orderBy(sql`${column('id')} ${direction}`) as Q;
}

/**
 * One page of a filtered table in (list_position, id) order: up to limit + 1 rows after the cursor's
 * position (the extra row says whether more follow), and the count of every row of the filter.
 */
export async function keysetPage<Row, DB, TB extends keyof DB>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  q: PageQuery,
): Promise<{ rows: Row[]; total: number }> {
  const page = q.after ? filtered.where(afterPosition(q.after, undefined, q.order)) : filtered;
  const rows = await keysetOrder(page.selectAll(), q.order).limit(q.limit + 1).execute();
  const counted = (await filtered.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow()) as { total: number | string };
  return { rows: rows as Row[], total: Number(counted.total) };
}
