/** Where a page ends in (creation time, id) order. */
export interface Position {
  createdAt: number;
  id: string;
}

/** One page to read: up to `limit` rows after the position (from the start when undefined). */
export interface PageQuery {
  limit: number;
  after: Position | undefined;
}
