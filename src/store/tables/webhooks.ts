import type { Generated } from 'kysely';

/** A platform's configuration (webhooks and the interface's config fields); one row per platform, created on first read. */
export interface PlatformWebhookConfigRow {
  platform_id: string;
  webhook_endpoint: string | null;
  /** `whsec_<base64>`: the key deliveries are signed with (HMAC needs it in clear). */
  secret: string;
  /** The secret before the last rotation; deliveries are signed with it too until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  /** ECDSA P-256 key pair of X-Grid-Signature: PKCS#8 and SPKI PEM. Null only on rows made before migration 007, until first use. */
  signing_private_key: string | null;
  signing_public_key: string | null;
  uma_domain: string | null;
  /** JSON text of each structured field; null when never set. */
  supported_currencies: string | null;
  embedded_wallet_config: string | null;
  card_tokenization_2fa_config: string | null;
  fee_configs: string | null;
  /** The platform's own SANDBOX_AUTHORIZATION_TTL in ms; null: the server's. Added by migration 019. */
  sandbox_authorization_ttl_ms?: number | null;
  created_at: number;
  updated_at: number;
}

/** One HTTP attempt to deliver an event, successful or not. */
export interface WebhookAttemptRow {
  id: string;
  event_id: string;
  platform_id: string;
  attempted_at: number;
  url: string;
  /** HTTP status of the answer; null when none came (timeout, connection error). */
  response_status: number | null;
  latency_ms: number;
  error: string | null;
  /** The first bytes of the answer's body. */
  response_excerpt: string | null;
}

export interface WebhookTables {
  platform_webhook_config: PlatformWebhookConfigRow;
  webhook_attempts: WebhookAttemptRow;
}

/** Columns migration 005 adds to webhook_events: a summary of its deliveries. */
export interface WebhookEventDeliveryColumns {
  attempt_count: Generated<number>;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  delivered_at: number | null;
}
