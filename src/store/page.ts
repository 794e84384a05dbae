/** Where a page ends in (creation time, id) order. */
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
