/** The first answer to a request sent with an Idempotency-Key, kept for replays. */
export interface IdempotencyKeyRow {
  /** The API token that sent it: keys are scoped to the token. */
  token_id: string;
  idempotency_key: string;
  /** The request's fingerprint: method, path with query, SHA-256 (hex) of the raw body bytes. */
  method: string;
  path: string;
  body_sha256: string;
  status: number;
  content_type: string | null;
  body: string | null;
  created_at: number;
  /** After this instant (ms) the record no longer replays and may be pruned. */
  expires_at: number;
}

export interface IdempotencyKeyTables {
  idempotency_keys: IdempotencyKeyRow;
}
