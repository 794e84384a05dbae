import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';

/** How much of an endpoint's answer is kept with an attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface DeliveryRequest {
  url: string;
  /** The event id: the `webhook-id` header, the same on every attempt. */
  id: string;
  /** The exact JSON that is signed and sent. */
  body: string;
  /** Every secret that signs it: the current one first, then the previous during a rotation. */
  secrets: string[];
  timeoutMs: number;
  now?: Date;
}

export interface DeliveryOutcome {
  ok: boolean;
  /** HTTP status; undefined when no answer came. */
  status: number | undefined;
  latencyMs: number;
  error: string | undefined;
  responseExcerpt: string | undefined;
}

/** The Standard Webhooks headers: one `v1,` signature per secret, space-separated. */
export function signedHeaders(id: string, body: string, secrets: string[], now = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'payments-service-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, now, body)).join(' '),
  };
}

// Connections to endpoints are kept alive between deliveries; node:http costs far less per request than fetch.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
};

/**
 * POSTs one signed delivery and reports what happened; never throws. 2xx is success; a redirect is
 * not followed (it counts as a failure). The timeout covers the whole exchange.
 */
export function sendWebhook(req: DeliveryRequest): Promise<DeliveryOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<DeliveryOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, latencyMs: elapsed() });
    };
    const fail = (error: string) => finish({ ok: false, status: undefined, error, responseExcerpt: undefined });
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return fail('request failed: invalid URL');
    }
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent) return fail(`request failed: unsupported protocol ${url.protocol}`);
    const body = Buffer.from(req.body, 'utf8');
    const headers = { ...signedHeaders(req.id, req.body, req.secrets, req.now), 'content-length': String(body.length) };
    const send = url.protocol === 'https:' ? https.request : http.request;
    const request = send(url, { method: 'POST', agent, headers }, (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const ok = status >= 200 && status < 300;
        const responseExcerpt = size === 0 ? undefined : Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
        finish({ ok, status, error: ok ? undefined : `endpoint answered HTTP ${status}`, responseExcerpt });
      };
      res.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_EXCERPT_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        // Enough for the excerpt: answer now, and let the rest drain so the connection can be reused.
        if (size >= RESPONSE_EXCERPT_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    const timer = setTimeout(() => {
      fail(`no answer within ${req.timeoutMs} ms (timeout)`);
      request.destroy();
    }, req.timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => fail(err.code ? `connection failed: ${err.code} (${err.message})` : `request failed: ${err.message}`));
    request.end(body);
  });
}
