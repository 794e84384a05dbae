import { findWebhookEventRow } from '../../store/webhooks-repo.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';
import { NotFoundError } from '../shared/errors.js';
import { signingSecrets, type PlatformConfigService } from '../platform/platform-config.js';
import type { SignWebhook } from './webhook-sending.js';

/** An event exactly as a delivery would send it now: the signed headers and the body bytes. */
export interface SignedDelivery {
  id: string;
  type: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Signs an event as the server would deliver it at this moment, for a forwarder the server cannot
 * reach (the CLI's `listen`): it sends these headers and body verbatim, and the receiver verifies
 * them with the platform's keys as it would a delivery.
 */
export class SignedDeliveries {
  constructor(
    private readonly store: Store,
    private readonly platformConfig: PlatformConfigService,
    // Injected: signing lives with the sender in jobs/.
    private readonly signHeaders: SignWebhook,
  ) {}

  private now(): Date {
    return new Date();
  }

  async sign(platformId: string, id: string, within?: UnitOfWork): Promise<SignedDelivery> {
    const row = await findWebhookEventRow((within ?? this.store).db, platformId, id);
    if (!row) throw new NotFoundError('WebhookEvent', id);
    const config = await this.platformConfig.load(platformId, within);
    const now = this.now();
    const headers = this.signHeaders({
      url: config.webhook_endpoint ?? '',
      id: row.id,
      body: row.body,
      secrets: signingSecrets(config, now.getTime()),
      signingKey: config.signing_private_key,
      now,
    });
    return { id: row.id, type: row.type, headers, body: row.body };
  }
}
