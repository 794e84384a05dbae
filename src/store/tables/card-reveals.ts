/** A reveal URL given out for a card (migration 018): usable once, until `expires_at`. */
export interface CardRevealRow {
  id: string;
  platform_id: string;
  card_id: string;
  /** The API token that asked for it. */
  requested_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface CardRevealTables {
  card_reveals: CardRevealRow;
}
