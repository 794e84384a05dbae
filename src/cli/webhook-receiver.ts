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
  signature: string;
  body: string;
  /** The parsed body, when a secret verified it. */
  payload: Record<string, unknown> | undefined;
  /** True when the signature verified with at least one secret. */
  verified: boolean;
  /** For each secret given to the receiver (by index): whether it alone verifies the delivery. */
  verifiedWith: boolean[];
  verifyError: string | undefined;
  /** What the receiver answered. */
  answeredStatus: number;
}

export interface WebhookReceiverOptions {
  /** Secrets to verify with; any one verifying marks a delivery verified. Can be changed later. */
  secrets?: string[];
  port?: number;
  onDelivery?: (delivery: ReceivedWebhook) => void;
}

/**
 * A real HTTP webhook receiver on 127.0.0.1 that verifies every delivery with the standardwebhooks
 * package, as a platform would. It can be told to fail the next N deliveries, to answer slowly,
 * or to go down and come back on the same port. Answers 401 to a delivery that does not verify.
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedWebhook[] = [];
  secrets: string[];
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
    this.portNumber = opts.port ?? 0;
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
        const delivery = this.receive(Buffer.concat(chunks).toString('utf8'), req.headers);
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

  private receive(body: string, headers: IncomingHttpHeaders): ReceivedWebhook {
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') flat[k] = v;
    const verifiedWith: boolean[] = [];
    let payload: Record<string, unknown> | undefined;
    let verifyError: string | undefined;
    for (const secret of this.secrets) {
      try {
        payload = new Webhook(secret).verify(body, flat) as Record<string, unknown>;
        verifiedWith.push(true);
      } catch (err) {
        verifiedWith.push(false);
        verifyError = err instanceof Error ? err.message : String(err);
      }
    }
    const verified = verifiedWith.includes(true);
    if (verified) verifyError = undefined;
    else if (this.secrets.length === 0) verifyError = 'receiver has no secret to verify with';
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
      body,
      payload,
      verified,
      verifiedWith,
      verifyError,
      answeredStatus,
    };
    this.deliveries.push(delivery);
    this.opts.onDelivery?.(delivery);
    for (const w of [...this.waiters]) w();
    return delivery;
  }
}
