import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Store } from '../../store/store.js';
import type { PlatformWebhookConfigRow } from '../../store/tables/webhooks.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { findWebhookConfig, insertWebhookConfigIfMissing, lockWebhookConfig, rotateWebhookSecret, setSigningKeysIfMissing, updateWebhookConfig } from '../../store/webhooks-repo.js';
import { ValidationError, type FieldError } from '../shared/errors.js';
import {
  currencyErrors,
  feeConfigErrors,
  mergeFeeConfigs,
  mergeSettings,
  storedCurrencies,
  type CurrencyConfig,
  type FeeConfig,
  type SettingsObject,
} from './platform-config-fields.js';
import type { WebhookTargetPolicy } from '../webhooks/webhook-targets.js';
import type { PlatformClock } from './platform-clock.js';

/** How long deliveries stay signed with the previous secret after a rotation as well. */
export const SECRET_ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_ENDPOINT_LENGTH = 2048;

export interface PlatformConfig {
  id: string;
  umaDomain?: string;
  webhookEndpoint?: string;
  supportedCurrencies: CurrencyConfig[];
  isRegulatedFinancialInstitution: boolean;
  embeddedWalletConfig?: SettingsObject;
  cardTokenization2faConfig?: SettingsObject;
  feeConfigs: FeeConfig[];
  sandboxAuthorizationTtlSeconds: number;
  webhookSecret: string;
  previousWebhookSecretExpiresAt?: string;
  webhookPublicKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface PlatformConfigPatch {
  umaDomain?: string;
  webhookEndpoint?: string | null;
  supportedCurrencies?: CurrencyConfig[];
  embeddedWalletConfig?: SettingsObject;
  cardTokenization2faConfig?: SettingsObject;
  feeConfigs?: FeeConfig[];
  /** null: back to the server's SANDBOX_AUTHORIZATION_TTL_MS. */
  sandboxAuthorizationTtlSeconds?: number | null;
}

/** A config row whose X-Grid-Signature key pair exists. */
export type PlatformConfigRow = PlatformWebhookConfigRow & { signing_private_key: string; signing_public_key: string };

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const generateEcKeyPair = promisify(generateKeyPair);

/** The ECDSA P-256 key pair of X-Grid-Signature: the private key as PKCS#8 PEM, the public one as SPKI PEM. */
export async function newSigningKeyPair(): Promise<{ privateKey: string; publicKey: string }> {
  return generateEcKeyPair('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
}

/** The secrets a delivery made at `now` is signed with: the current one, and the previous during its window. */
export function signingSecrets(row: Pick<PlatformWebhookConfigRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now: number): string[] {
  const live = row.previous_secret !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
  return live ? [row.secret, row.previous_secret!] : [row.secret];
}

/** Checks a webhook endpoint beyond the schema: absolute, http or https, a host, no credentials, not port 0, not a literal internal address. */
export function endpointErrors(value: string, targets: WebhookTargetPolicy): FieldError[] {
  const invalid = (message: string) => [{ field: 'webhookEndpoint', constraint: { format: 'url', pattern: '^https?://' }, message }];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid('must use http or https');
  if (!url.hostname) return invalid('must name a host');
  if (url.username || url.password) return invalid('must not carry credentials');
  if (url.port === '0') return invalid('must not use port 0, which no server listens on');
  if (!targets.allowsHost(url.hostname)) return invalid('must not be a loopback, private, link-local or other internal address on this server');
  return [];
}

const parsed = <T>(json: string | null): T | undefined => (json === null ? undefined : (JSON.parse(json) as T));

function render(row: PlatformConfigRow, now: number, defaultTtlMs: number): PlatformConfig {
  const out: PlatformConfig = {
    id: `PlatformConfig:${row.platform_id.slice(row.platform_id.indexOf(':') + 1)}`,
    supportedCurrencies: parsed<CurrencyConfig[]>(row.supported_currencies) ?? [],
    isRegulatedFinancialInstitution: false,
    feeConfigs: parsed<FeeConfig[]>(row.fee_configs) ?? [],
    sandboxAuthorizationTtlSeconds: Math.floor(Number(row.sandbox_authorization_ttl_ms ?? defaultTtlMs) / 1000),
    webhookSecret: row.secret,
    webhookPublicKey: row.signing_public_key,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
  if (row.uma_domain !== null) out.umaDomain = row.uma_domain;
  if (row.webhook_endpoint !== null) out.webhookEndpoint = row.webhook_endpoint;
  const wallet = parsed<SettingsObject>(row.embedded_wallet_config);
  if (wallet) out.embeddedWalletConfig = wallet;
  const tokenization = parsed<SettingsObject>(row.card_tokenization_2fa_config);
  if (tokenization) out.cardTokenization2faConfig = tokenization;
  if (signingSecrets(row, now).length > 1) out.previousWebhookSecretExpiresAt = new Date(row.previous_secret_expires_at!).toISOString();
  return out;
}

const hasKeys = (row: PlatformWebhookConfigRow): row is PlatformConfigRow => row.signing_private_key !== null && row.signing_public_key !== null;

/** A platform's configuration: the interface's settings, its webhook endpoint and both ways deliveries are signed. */
export class PlatformConfigService {
  constructor(
    private readonly store: Store,
    private readonly targets: WebhookTargetPolicy,
    /** SANDBOX_AUTHORIZATION_TTL_MS: the time-to-live of a platform that set none. */
    private readonly defaultAuthorizationTtlMs: number,
    private readonly clock: PlatformClock,
  ) {}

  /**
   * The platform's config row, created with a fresh secret and key pair on first use (and a key pair
   * added to older rows). `within`: the request's unit of work, when it has one (an Idempotency-Key).
   */
  async load(platformId: string, within?: UnitOfWork): Promise<PlatformConfigRow> {
    const { db } = within ?? this.store;
    const found = await findWebhookConfig(db, platformId);
    if (found && hasKeys(found)) return found;
    const keys = await newSigningKeyPair();
    if (found) {
      await setSigningKeysIfMissing(db, platformId, keys.privateKey, keys.publicKey);
    } else {
      const now = await this.clock.now(platformId);
      await insertWebhookConfigIfMissing(db, {
        platform_id: platformId,
        webhook_endpoint: null,
        secret: newWebhookSecret(),
        previous_secret: null,
        previous_secret_expires_at: null,
        signing_private_key: keys.privateKey,
        signing_public_key: keys.publicKey,
        uma_domain: null,
        supported_currencies: null,
        embedded_wallet_config: null,
        card_tokenization_2fa_config: null,
        fee_configs: null,
        created_at: now,
        updated_at: now,
      });
    }
    // Processes racing here agree on the first row and key pair written.
    return (await findWebhookConfig(db, platformId)) as PlatformConfigRow;
  }

  async get(platformId: string): Promise<PlatformConfig> {
    return render(await this.load(platformId), Date.now(), this.defaultAuthorizationTtlMs);
  }

  /** The configuration without the signing secret, for tokens that may not manage it (whoever holds it can forge deliveries). */
  async getWithoutSecret(platformId: string): Promise<Omit<PlatformConfig, 'webhookSecret'>> {
    const { webhookSecret: _secret, ...rest } = await this.get(platformId);
    return rest;
  }

  /**
   * Applies the fields given; the rest stay as they are. `supportedCurrencies` replaces the list,
   * the settings objects merge field by field, `feeConfigs` upserts by (feeType, sourceCurrency),
   * and `webhookEndpoint: null` removes the endpoint. Every invalid field is reported at once.
   */
  async update(platformId: string, patch: PlatformConfigPatch, within?: UnitOfWork): Promise<PlatformConfig> {
    const errors = [
      ...(typeof patch.webhookEndpoint === 'string' ? endpointErrors(patch.webhookEndpoint, this.targets) : []),
      ...currencyErrors(patch.supportedCurrencies ?? []),
      ...feeConfigErrors(patch.feeConfigs ?? []),
    ];
    if (errors.length > 0) throw new ValidationError(errors);
    await this.load(platformId, within);
    const now = Date.now();
    await this.store.transaction(async (uow) => {
      // Merged fields are read and written in one unit of work, under a row lock.
      const row = (await lockWebhookConfig(uow, platformId))!;
      // updatedAt is the platform's clock; `now` (real) judges the secret rotation window, which is about deliveries.
      const changes: Parameters<typeof updateWebhookConfig>[2] = { updated_at: await this.clock.now(platformId, uow) };
      if (patch.webhookEndpoint !== undefined) changes.webhook_endpoint = patch.webhookEndpoint;
      if (patch.umaDomain !== undefined) changes.uma_domain = patch.umaDomain;
      if (patch.supportedCurrencies) changes.supported_currencies = JSON.stringify(storedCurrencies(patch.supportedCurrencies));
      if (patch.embeddedWalletConfig) changes.embedded_wallet_config = JSON.stringify(mergeSettings(parsed(row.embedded_wallet_config), patch.embeddedWalletConfig));
      if (patch.cardTokenization2faConfig) {
        changes.card_tokenization_2fa_config = JSON.stringify(mergeSettings(parsed(row.card_tokenization_2fa_config), patch.cardTokenization2faConfig));
      }
      if (patch.sandboxAuthorizationTtlSeconds !== undefined) changes.sandbox_authorization_ttl_ms = patch.sandboxAuthorizationTtlSeconds === null ? null : patch.sandboxAuthorizationTtlSeconds * 1000;
      if (patch.feeConfigs) changes.fee_configs = JSON.stringify(mergeFeeConfigs(parsed<FeeConfig[]>(row.fee_configs) ?? [], patch.feeConfigs));
      await updateWebhookConfig(uow.db, platformId, changes);
    }, within);
    return render((await findWebhookConfig((within ?? this.store).db, platformId)) as PlatformConfigRow, now, this.defaultAuthorizationTtlMs);
  }

  /**
   * Replaces the Standard Webhooks secret. For SECRET_ROTATION_WINDOW_MS deliveries carry a
   * signature with the old secret too, so receivers can switch without dropping any; rotating again
   * within the window retires the older secret at once. The X-Grid-Signature key pair stays: its
   * public key is what receivers pinned.
   */
  async rotateSecret(platformId: string, within?: UnitOfWork): Promise<PlatformConfig> {
    await this.load(platformId, within);
    const { db } = within ?? this.store;
    const now = Date.now();
    // The previous secret's window is real time (it is about deliveries); updatedAt is the platform's clock.
    await rotateWebhookSecret(db, platformId, newWebhookSecret(), now + SECRET_ROTATION_WINDOW_MS, await this.clock.now(platformId, within));
    return render((await findWebhookConfig(db, platformId)) as PlatformConfigRow, now, this.defaultAuthorizationTtlMs);
  }
}
