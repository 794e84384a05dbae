/** One signed POST of an event to a platform's endpoint, as the domain asks for it; jobs/webhook-sender.ts sends it. */
export interface WebhookDelivery {
  url: string;
  /** The event id: the `webhook-id` header, the same on every attempt. */
  id: string;
  /** The exact JSON that is signed and sent. */
  body: string;
  /** Every secret that signs it: the current one first, then the previous during a rotation. */
  secrets: string[];
  /** The platform's ECDSA P-256 private key (PKCS#8 PEM) that signs X-Grid-Signature. */
  signingKey: string;
  /** The attempt's time, signed as `webhook-timestamp`. */
  now?: Date;
}

export interface DeliveryOutcome {
  /** Delivered: the endpoint answered 2xx, or 409 (it already has the event). */
  ok: boolean;
  /** HTTP status; undefined when no answer came. */
  status: number | undefined;
  latencyMs: number;
  error: string | undefined;
  /** The first 1 KiB of the answer. */
  responseExcerpt: string | undefined;
}

/** The headers a delivery is sent with, signed both ways (jobs/webhook-signature.ts). */
export type SignWebhook = (delivery: WebhookDelivery) => Record<string, string>;

/** Sends one delivery and reports what happened; never throws. */
export type SendWebhook = (delivery: WebhookDelivery) => Promise<DeliveryOutcome>;

/** For processes that send no webhooks (the CLI, tests of other things): asking one to send is a bug. */
export const noWebhookSender: SendWebhook = async () => {
  throw new Error('this process was opened without a webhook sender');
};
