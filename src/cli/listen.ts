import { parseArgs } from 'node:util';
import type { CliCommand } from './main.js';

const USAGE = `Usage: listen --forward-to URL [--events TYPE,...] [--base-url URL] [--client-id ID] [--client-secret SECRET] [--interval-ms 1000]
Credentials default to BASE_URL (http://127.0.0.1:8080), CLIENT_ID and CLIENT_SECRET.`;

const API_PATH = '/2025-10-13';
const PAGE = 100;

interface EventSummary {
  id: string;
  type: string;
}

interface SignedDelivery {
  headers: Record<string, string>;
  body: string;
}

class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly auth: string,
  ) {}

  async call<T>(method: 'GET' | 'POST', path: string): Promise<T> {
    const res = await fetch(`${this.baseUrl}${API_PATH}${path}`, { method, headers: { authorization: this.auth } });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }
}

/**
 * Follows the platform's event log, oldest first: each poll reads again from the cursor of the
 * last full page (a list gives no cursor past its end), and skips the events already seen.
 */
class EventFollower {
  private cursor: string | undefined;
  private readonly seen = new Set<string>();

  constructor(private readonly api: ApiClient) {}

  /** The events made since the last call (all of them on the first). */
  async next(): Promise<EventSummary[]> {
    const fresh: EventSummary[] = [];
    for (;;) {
      const page = await this.api.call<{ data: EventSummary[]; nextCursor?: string }>('GET', `/webhook-events?limit=${PAGE}${this.cursor ? `&cursor=${this.cursor}` : ''}`);
      for (const e of page.data) if (!this.seen.has(e.id) && this.seen.add(e.id)) fresh.push(e);
      if (!page.nextCursor) return fresh;
      // The events before the cursor are never read again: forget them.
      for (const e of page.data) this.seen.delete(e.id);
      this.cursor = page.nextCursor;
    }
  }
}

async function forward(target: string, delivery: SignedDelivery): Promise<string> {
  try {
    const res = await fetch(target, { method: 'POST', headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return String(res.status);
  } catch (err) {
    return `error: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Like the Stripe CLI's listen: forwards each new event of the platform, signed by the server, to a local URL. */
export const listenCommand: CliCommand = {
  summary: 'forward the platform\'s new webhook events, signed, to a local URL',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        'base-url': { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'interval-ms': { type: 'string', default: '1000' },
      },
    });
    const target = values['forward-to'];
    const clientId = values['client-id'] ?? process.env.CLIENT_ID;
    const secret = values['client-secret'] ?? process.env.CLIENT_SECRET;
    const intervalMs = Number(values['interval-ms']);
    if (!target || !clientId || !secret || !Number.isSafeInteger(intervalMs) || intervalMs < 10) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    const baseUrl = (values['base-url'] ?? process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    const types = values.events ? new Set(values.events.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
    const api = new ApiClient(baseUrl, `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`);
    const follower = new EventFollower(api);
    // Only what happens from now on is forwarded, as the Stripe CLI does.
    await follower.next();
    process.stdout.write(`Ready. Forwarding ${types ? [...types].join(', ') : 'every event type'} to ${target} (Ctrl-C to stop)\n`);

    let stopping = false;
    const stop = () => void (stopping = true);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    while (!stopping) {
      try {
        for (const event of await follower.next()) {
          if (types && !types.has(event.type)) continue;
          const delivery = await api.call<SignedDelivery>('POST', `/webhook-events/${encodeURIComponent(event.id)}/signed-delivery`);
          const status = await forward(target, delivery);
          process.stdout.write(`${new Date().toISOString()}  --> ${event.type} [${event.id}]  <-- [${status}] POST ${target}\n`);
        }
      } catch (err) {
        process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      }
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    return 0;
  },
};
