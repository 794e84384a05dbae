import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store.js';
import type { PlatformWebhookConfigRow } from '../store/tables/webhooks.js';
import { findWebhookConfig, insertWebhookConfigIfMissing, rotateWebhookSecret, updateWebhookConfig } from '../store/webhooks-repo.js';
import { ValidationError } from './errors.js';

/** How long deliveries stay signed with the previous secret after a rotation as well. */
export const SECRET_ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_ENDPOINT_LENGTH = 2048;

export interface PlatformConfig {
  id: string;
  webhookEndpoint?: string;
  webhookSecret: string;
  previousWebhookSecretExpiresAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secrets a delivery made at `now` is signed with: the current one, and the previous during its window. */
export function signingSecrets(row: Pick<PlatformWebhookConfigRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now: number): string[] {
  const live = row.previous_secret !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
  return live ? [row.secret, row.previous_secret!] : [row.secret];
}

/** Checks a webhook endpoint beyond the schema: absolute, http or https, a host, no credentials. */
export function validateEndpoint(value: string): void {
  const invalid = (message: string) =>
    new ValidationError([{ field: 'webhookEndpoint', constraint: { format: 'url', pattern: '^https?://' }, message }]);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('must use http or https');
  if (!url.hostname) throw invalid('must name a host');
  if (url.username || url.password) throw invalid('must not carry credentials');
}

function render(row: PlatformWebhookConfigRow, now: number): PlatformConfig {
  const out: PlatformConfig = {
    id: `PlatformConfig:${row.platform_id.slice(row.platform_id.indexOf(':') + 1)}`,
    webhookSecret: row.secret,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
  if (row.webhook_endpoint !== null) out.webhookEndpoint = row.webhook_endpoint;
  if (signingSecrets(row, now).length > 1) out.previousWebhookSecretExpiresAt = new Date(row.previous_secret_expires_at!).toISOString();
  return out;
}

/** A platform's configuration: its webhook endpoint and signing secret. */
export class PlatformConfigService {
  constructor(private readonly store: Store) {}

  /** The platform's config row, created with a fresh secret on first use. */
  async load(platformId: string): Promise<PlatformWebhookConfigRow> {
    const found = await findWebhookConfig(this.store.db, platformId);
    if (found) return found;
    const now = Date.now();
    await insertWebhookConfigIfMissing(this.store.db, {
      platform_id: platformId,
      webhook_endpoint: null,
      secret: newWebhookSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: now,
      updated_at: now,
    });
    return (await findWebhookConfig(this.store.db, platformId))!;
  }

  async get(platformId: string): Promise<PlatformConfig> {
    return render(await this.load(platformId), Date.now());
  }

  /** Sets (a string) or clears (null) the endpoint; an absent field is left as it is. */
  async update(platformId: string, patch: { webhookEndpoint?: string | null }): Promise<PlatformConfig> {
    if (typeof patch.webhookEndpoint === 'string') validateEndpoint(patch.webhookEndpoint);
    await this.load(platformId);
    const now = Date.now();
    await updateWebhookConfig(this.store.db, platformId, {
      ...(patch.webhookEndpoint !== undefined ? { webhook_endpoint: patch.webhookEndpoint } : {}),
      updated_at: now,
    });
    return render((await findWebhookConfig(this.store.db, platformId))!, now);
  }

  /**
   * Replaces the signing secret. For SECRET_ROTATION_WINDOW_MS deliveries carry a signature with
   * the old secret too, so receivers can switch without dropping any. Rotating again within the
   * window retires the older secret at once.
   */
  async rotateSecret(platformId: string): Promise<PlatformConfig> {
    await this.load(platformId);
    const now = Date.now();
    await rotateWebhookSecret(this.store.db, platformId, newWebhookSecret(), now + SECRET_ROTATION_WINDOW_MS, now);
    return render((await findWebhookConfig(this.store.db, platformId))!, now);
  }
}
