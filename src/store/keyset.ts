import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { PageQuery, Position } from './page.js';

/** Rows after a position in (created_at, id) order, optionally of a table alias; both engines support row values. */
export function afterPosition(after: Position, table?: string): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  return sql<boolean>`(${column('created_at')}, ${column('id')}) > (${after.createdAt}, ${after.id})`;
}

/**
 * One page of a filtered table in (created_at, id) order: up to limit + 1 rows after the cursor's
 * position (the extra row says whether more follow), and the count of every row of the filter.
 */
export async function keysetPage<Row, DB, TB extends keyof DB>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  q: PageQuery,
): Promise<{ rows: Row[]; total: number }> {
  const page = q.after ? filtered.where(afterPosition(q.after)) : filtered;
  const rows = await page.selectAll().orderBy(sql`created_at`).orderBy(sql`id`).limit(q.limit + 1).execute();
  const counted = (await filtered.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow()) as { total: number | string };
  return { rows: rows as Row[], total: Number(counted.total) };
}
