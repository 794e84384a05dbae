/** The first answer to a request sent with an Idempotency-Key, kept for replays. */
export interface IdempotencyKeyRow {
  /** The API token that sent it: keys are scoped to the token. */
  token_id: string;
  /** SHA-256 (hex) of the key: the key itself, which unlocks `body`, is never stored. */
  key_sha256: string;
  /** The request's fingerprint: method, path with query, SHA-256 (hex) of the raw body bytes. */
  method: string;
  path: string;
  body_sha256: string;
  status: number;
  content_type: string | null;
  /** The answer's body sealed with a key derived from the token id and the Idempotency-Key (AES-256-GCM), so the database alone cannot read it (a created token's secret is in it). */
  body: string | null;
  created_at: number;
  /** After this instant (ms) the record no longer replays and may be pruned. */
  expires_at: number;
}

export interface IdempotencyKeyTables {
  idempotency_keys: IdempotencyKeyRow;
}
