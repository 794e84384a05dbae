import { sql, type SelectQueryBuilder } from 'kysely';
import type { Position } from '../domain/pagination.js';

/** Restricts an ordered (created_at, id) query to rows after a position; both engines support row values. */
export function afterPosition<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  after: Position | undefined,
): SelectQueryBuilder<DB, TB, O> {
  if (!after) return qb;
  return qb.where(sql<boolean>`(created_at, id) > (${after.createdAt}, ${after.id})`);
}
