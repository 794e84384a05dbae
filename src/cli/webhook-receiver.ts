import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  /** Arrival time, ms since the epoch (performance-independent, comparable across processes). */
  receivedAt: number;
  /** Per-process monotonic arrival time, for latency measurements. */
  receivedAtHr: number;
  id: string;
  timestamp: string;
  /** The Standard Webhooks `webhook-signature` header. */
  signature: string;
  /** The `X-Grid-Signature` header. */
  gridSignature: string;
  body: string;
  /** The parsed body, when a secret verified it. */
  payload: Record<string, unknown> | undefined;
  /** True when both signatures verified: X-Grid-Signature with the public key and webhook-signature with at least one secret. */
  verified: boolean;
  /** X-Grid-Signature verified with the platform's public key (Node's crypto, over the raw body bytes). */
  gridVerified: boolean;
  /** webhook-signature verified with at least one secret (the standardwebhooks package). */
  standardVerified: boolean;
  /** For each secret given to the receiver (by index): whether it alone verifies the delivery. */
  verifiedWith: boolean[];
  verifyError: string | undefined;
  /** What the receiver answered. */
  answeredStatus: number;
}

/** What a receiver needs from the platform's configuration (GET or PATCH /config) to verify deliveries both ways. */
export interface WebhookVerificationKeys {
  webhookSecret: string;
  webhookPublicKey: string;
}

export interface WebhookReceiverOptions {
  /** Secrets to verify webhook-signature with; any one verifying is enough. Can be changed later. */
  secrets?: string[];
  /** PEM public key to verify X-Grid-Signature with. Can be changed later. */
  publicKey?: string;
  port?: number;
  onDelivery?: (delivery: ReceivedWebhook) => void;
}

/**
 * A real HTTP webhook receiver on 127.0.0.1 that verifies both signatures of every delivery, as a
 * platform would: X-Grid-Signature with Node's crypto and the platform's public key, the Standard
 * Webhooks headers with the standardwebhooks package. It can be told to fail the next N deliveries,
 * to answer slowly, or to go down and come back on the same port. Answers 401 to a delivery that
 * does not verify both ways.
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedWebhook[] = [];
  secrets: string[];
  publicKey: string | undefined;
  private parsedKey: { pem: string; key: KeyObject } | undefined;
  /** Answer this many deliveries with `failStatus` (after verifying them), then succeed. */
  failNext = 0;
  failStatus = 503;
  /** Delay every answer by this long. */
  delayMs = 0;
  private server: Server | undefined;
  private portNumber: number;
  private waiters = new Set<() => void>();

  constructor(private readonly opts: WebhookReceiverOptions = {}) {
    this.secrets = opts.secrets ?? [];
    this.publicKey = opts.publicKey;
    this.portNumber = opts.port ?? 0;
  }

  /** Verifies from now on with the platform's current secret and public key. */
  trust(config: WebhookVerificationKeys): this {
    this.secrets = [config.webhookSecret];
    this.publicKey = config.webhookPublicKey;
    return this;
  }

  get port(): number {
    return this.portNumber;
  }

  get url(): string {
    return `http://127.0.0.1:${this.portNumber}/webhooks`;
  }

  /** Starts listening (again, on the same port after stop()). */
  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const delivery = this.receive(Buffer.concat(chunks), req.headers);
        const answer = () => {
          res.writeHead(delivery.answeredStatus, { 'content-type': 'application/json' });
          res.end(JSON.stringify(delivery.answeredStatus < 300 ? { received: true } : { error: delivery.verifyError ?? 'receiver told to fail' }));
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.portNumber, '127.0.0.1', () => resolve());
    });
    this.portNumber = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Stops listening and drops open connections: the endpoint is down until start(). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Deliveries that verified, one per webhook-id (the first arrival), in arrival order. */
  verifiedUnique(): ReceivedWebhook[] {
    const seen = new Set<string>();
    return this.deliveries.filter((d) => d.verified && d.answeredStatus < 300 && !seen.has(d.id) && seen.add(d.id));
  }

  /** Resolves once `predicate` holds over the deliveries so far; rejects after `timeoutMs`. */
  async waitFor(predicate: (deliveries: ReceivedWebhook[]) => boolean, timeoutMs = 10_000): Promise<void> {
    if (predicate(this.deliveries)) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate(this.deliveries)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`webhook receiver: condition not met within ${timeoutMs} ms (${this.deliveries.length} deliveries so far)`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  private receive(raw: Buffer, headers: IncomingHttpHeaders): ReceivedWebhook {
    const body = raw.toString('utf8');
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') flat[k] = v;
    const gridSignature = flat['x-grid-signature'] ?? '';
    const verifiedWith: boolean[] = [];
    let payload: Record<string, unknown> | undefined;
    let standardError = 'receiver has no secret to verify webhook-signature with';
    for (const secret of this.secrets) {
      try {
        payload = new Webhook(secret).verify(body, flat) as Record<string, unknown>;
        verifiedWith.push(true);
      } catch (err) {
        verifiedWith.push(false);
        standardError = `webhook-signature: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    const standardVerified = verifiedWith.includes(true);
    const gridVerified = this.verifyGridSignature(raw, gridSignature);
    const problems = [
      ...(standardVerified ? [] : [standardError]),
      ...(gridVerified ? [] : [this.publicKey ? 'X-Grid-Signature does not verify with the public key' : 'receiver has no public key to verify X-Grid-Signature with']),
    ];
    const verified = problems.length === 0;
    const verifyError = verified ? undefined : problems.join('; ');
    let answeredStatus = verified ? 200 : 401;
    if (verified && this.failNext > 0) {
      this.failNext -= 1;
      answeredStatus = this.failStatus;
    }
    const delivery: ReceivedWebhook = {
      receivedAt: Date.now(),
      receivedAtHr: performance.now(),
      id: flat['webhook-id'] ?? '',
      timestamp: flat['webhook-timestamp'] ?? '',
      signature: flat['webhook-signature'] ?? '',
      gridSignature,
      body,
      payload,
      verified,
      gridVerified,
      standardVerified,
      verifiedWith,
      verifyError,
      answeredStatus,
    };
    this.deliveries.push(delivery);
    this.opts.onDelivery?.(delivery);
    for (const w of [...this.waiters]) w();
    return delivery;
  }

  /** Grid's check: base64 of a DER ECDSA P-256 signature over SHA-256 of the raw body bytes. */
  private verifyGridSignature(raw: Buffer, header: string): boolean {
    if (!this.publicKey || header === '') return false;
    try {
      return verify('sha256', raw, this.parsedPublicKey(this.publicKey), Buffer.from(header, 'base64'));
    } catch {
      return false;
    }
  }

  /** The key parsed once, not per delivery: the webhooks bench receives hundreds a second. */
  private parsedPublicKey(pem: string): KeyObject {
    if (this.parsedKey?.pem !== pem) this.parsedKey = { pem, key: createPublicKey(pem) };
    return this.parsedKey.key;
  }
}
