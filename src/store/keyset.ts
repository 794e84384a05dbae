import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { PageQuery, Position, SortOrder } from './page.js';

/** Rows after a position in (created_at, id) order (before it when descending), optionally of a table alias; both engines support row values. */
export function afterPosition(after: Position, table?: string, order: SortOrder = 'asc'): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  const beyond = order === 'desc' ? sql.raw('<') : sql.raw('>');
  return sql<boolean>`(${column('created_at')}, ${column('id')}) ${beyond} (${after.createdAt}, ${after.id})`;
}

/** The keyset order of a page: (created_at, id), ascending or descending. */
export function keysetOrder<Q extends SelectQueryBuilder<any, any, any>>(query: Q, order: SortOrder = 'asc', table?: string): Q {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  const direction = sql.raw(order === 'desc' ? 'desc' : 'asc');
  return query.orderBy(sql`${column('created_at')} ${direction}`).orderBy(sql`${column('id')} ${direction}`) as Q;
}

/**
 * One page of a filtered table in (created_at, id) order: up to limit + 1 rows after the cursor's
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
