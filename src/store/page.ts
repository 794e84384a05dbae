/**
 * Where a page ends in (position, id) order. The position is a time in milliseconds: an owner's
 * creation time (stamped in commit order per customer), or a row's `list_position` (given at
 * commit per platform) on the other lists.
 */
export interface Position {
  createdAt: number;
  id: string;
}

export type SortOrder = 'asc' | 'desc';

/** One page to read: up to `limit` rows after the position (from the start when undefined), oldest first unless `order` is desc. */
export interface PageQuery {
  limit: number;
  after: Position | undefined;
  order?: SortOrder;
}
