import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one attempt: one `v1,` signature per secret, space-separated. */
export function signedHeaders(id: string, body: string, secrets: string[], now = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'payments-service-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, now, body)).join(' '),
  };
}
