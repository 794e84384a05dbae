import { sql, type SelectQueryBuilder } from 'kysely';
import type { PageQuery, Position } from '../domain/pagination.js';

/** Restricts an ordered (created_at, id) query to rows after a position; both engines support row values. */
export function afterPosition<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  after: Position | undefined,
): SelectQueryBuilder<DB, TB, O> {
  if (!after) return qb;
  return qb.where(sql<boolean>`(created_at, id) > (${after.createdAt}, ${after.id})`);
}

/**
 * One page of a filtered table in (created_at, id) order: up to limit + 1 rows after the cursor's
 * position (the extra row says whether more follow), and the count of every row of the filter.
 */
export async function keysetPage<Row, DB, TB extends keyof DB>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  q: PageQuery,
): Promise<{ rows: Row[]; total: number }> {
  const rows = await afterPosition(filtered.selectAll(), q.after)
    .orderBy(sql`created_at`)
    .orderBy(sql`id`)
    .limit(q.limit + 1)
    .execute();
  const counted = (await filtered.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow()) as { total: number | string };
  return { rows: rows as Row[], total: Number(counted.total) };
}
