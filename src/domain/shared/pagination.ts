import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { PageQuery, Position, SortOrder } from '../../store/page.js';
import { ValidationError } from './errors.js';

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

const MAC_BYTES = 16;

/** A date-time the schema accepted, in epoch ms; one the clock cannot hold (a leap second, year 0) is a 400 on its field. */
export function instant(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new ValidationError([{ field, constraint: { format: 'date-time' }, message: 'is not a date-time this service can represent' }]);
  return ms;
}

/**
 * The scope a list's cursors are bound to: the list, the platform and every parameter that shapes
 * the result (filters and sort order), so a cursor used with any other set is refused.
 */
export function listScope(list: string, platformId: string, parameters: Record<string, string | undefined>): string {
  const named = Object.keys(parameters)
    .filter((k) => parameters[k] !== undefined)
    .sort()
    .map((k) => [k, parameters[k]]);
  return `${list}:${platformId}:${JSON.stringify(named)}`;
}

/**
 * Opaque, authenticated cursors. The MAC covers the position and the list's scope (platform,
 * filter), so a forged, truncated or foreign cursor is refused instead of silently misread.
 */
export class Cursors {
  private readonly key: KeyObject;

  constructor(key: Buffer) {
    this.key = createSecretKey(key);
  }

  encode(scope: string, pos: Position): string {
    const payload = Buffer.from(`${pos.createdAt.toString(36)}.${pos.id}`, 'utf8');
    return Buffer.concat([this.mac(scope, payload), payload]).toString('base64url');
  }

  /** Reads a cursor back; throws a ValidationError on field `cursor` if it is not one of ours for this scope. */
  decode(scope: string, cursor: string): Position {
    const bad = () => new ValidationError([{ field: 'cursor', message: 'is not a cursor returned by this list for these parameters' }]);
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
    const raw = Buffer.from(cursor, 'base64url');
    // Only the exact text we issued: base64 can spell the same bytes in several ways.
    if (raw.length <= MAC_BYTES || raw.toString('base64url') !== cursor) throw bad();
    const payload = raw.subarray(MAC_BYTES);
    if (!timingSafeEqual(raw.subarray(0, MAC_BYTES), this.mac(scope, payload))) throw bad();
    const text = payload.toString('utf8');
    const dot = text.indexOf('.');
    const createdAt = parseInt(text.slice(0, dot), 36);
    if (dot < 1 || !Number.isSafeInteger(createdAt)) throw bad();
    return { createdAt, id: text.slice(dot + 1) };
  }

  /** Parses the optional cursor of a list request; the order is part of what the cursor is bound to (see `listScope`). */
  query(scope: string, limit: number, cursor: string | undefined, order: SortOrder = 'asc'): PageQuery {
    return { limit, after: cursor === undefined ? undefined : this.decode(scope, cursor), order };
  }

  /** Builds a page from up to limit + 1 rows fetched in order. */
  page<R extends { list_position?: number | undefined; created_at: number; id: string }, T>(scope: string, q: PageQuery, rows: R[], totalCount: number, render: (row: R) => T): Page<T> {
    const hasMore = rows.length > q.limit;
    const kept = hasMore ? rows.slice(0, q.limit) : rows;
    const data = kept.map(render);
    if (!hasMore) return { data, hasMore, totalCount };
    const last = kept[kept.length - 1]!;
    return { data, hasMore, nextCursor: this.encode(scope, { createdAt: last.list_position ?? last.created_at, id: last.id }), totalCount };
  }

  private mac(scope: string, payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(`${scope}\0`).update(payload).digest().subarray(0, MAC_BYTES);
  }
}
