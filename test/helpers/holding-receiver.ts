import { verify as verifySignature } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface HeldDelivery {
  id: string;
  type: string;
  body: Record<string, unknown>;
}

/**
 * A webhook receiver on 127.0.0.1 that verifies both signatures of every delivery (X-Grid-Signature
 * with Node's crypto, webhook-signature with the standardwebhooks package) and, while `holding`, keeps its answer back until release(): the sender's delivery stays in
 * flight for as long as a test needs. Deliveries that do not verify are answered 401 at once.
 */
export class HoldingReceiver {
  /** Every verified delivery, in arrival order (duplicates by webhook-id included). */
  readonly verified: HeldDelivery[] = [];
  unverified = 0;
  secrets: string[] = [];
  publicKey: string | undefined;
  holding = true;
  private readonly held: { type: string; res: ServerResponse }[] = [];
  private readonly server: Server;
  private readonly listeners = new Set<() => void>();

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'));
        const bytes = Buffer.concat(chunks);
        const raw = bytes.toString('utf8');
        const body = this.secrets.map((s) => verify(s, raw, headers)).find((b) => b !== undefined);
        const gridVerified = this.publicKey !== undefined && verifySignature('sha256', bytes, this.publicKey, Buffer.from(headers['x-grid-signature'] ?? '', 'base64'));
        if (!body || !gridVerified) {
          this.unverified++;
          return void res.writeHead(401).end();
        }
        this.verified.push({ id: headers['webhook-id']!, type: String(body.type), body });
        if (this.holding) this.held.push({ type: String(body.type), res });
        else res.writeHead(200).end();
        for (const l of [...this.listeners]) l();
      });
    });
  }

  /** Verifies from now on with the platform's secret and public key (GET or PATCH /config). */
  trust(config: { webhookSecret: string; webhookPublicKey: string }): this {
    this.secrets = [config.webhookSecret];
    this.publicKey = config.webhookPublicKey;
    return this;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  /** Answers 200 to the held deliveries of the given type, or to all of them and stops holding. */
  release(type?: string): void {
    if (type === undefined) this.holding = false;
    for (const [i, held] of [...this.held.entries()].reverse()) {
      if (type !== undefined && held.type !== type) continue;
      this.held.splice(i, 1);
      if (!held.res.destroyed) held.res.writeHead(200).end();
    }
  }

  /** Deliveries held unanswered right now: requests the sender has in flight. */
  get inFlight(): number {
    return this.held.filter((h) => !h.res.destroyed).length;
  }

  /** Distinct webhook-ids verified so far. */
  ids(): Set<string> {
    return new Set(this.verified.map((d) => d.id));
  }

  async waitFor(what: string, predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`receiver: ${what} not seen within ${timeoutMs} ms (${this.verified.map((d) => d.type).join(', ')} verified, ${this.unverified} not)`));
      }, timeoutMs);
      this.listeners.add(check);
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function verify(secret: string, raw: string, headers: Record<string, string>): Record<string, unknown> | undefined {
  try {
    return new Webhook(secret).verify(raw, headers) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
