import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import type { DeliveryOutcome, SendWebhook, WebhookDelivery } from '../domain/webhook-sending.js';
import { signedHeaders } from './webhook-signature.js';

/** How much of an endpoint's answer is read and kept with an attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * The one place the outbound HTTP client is built (an address policy hooks in here, through
 * `connect`). Connections to endpoints are kept alive between deliveries; each phase has its own
 * timeout, and the whole attempt is bounded by the sender's signal as well.
 */
export function createWebhookDispatcher(timeoutMs: number): Dispatcher {
  return new Agent({
    connections: 256,
    keepAliveTimeout: 4_000,
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

type Result = Omit<DeliveryOutcome, 'latencyMs'>;

const failed = (error: string): Result => ({ ok: false, status: undefined, error, responseExcerpt: undefined });

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * POSTs signed webhook deliveries. 2xx is success; a redirect is not followed (it is a failed
 * attempt); at most 1 KiB of the answer is read, then the body is dropped (closing the connection
 * if more was coming). Every failure is an outcome: send never throws.
 */
export class WebhookSender {
  constructor(
    private readonly timeoutMs: number,
    private readonly dispatcher: Dispatcher = createWebhookDispatcher(timeoutMs),
  ) {}

  readonly send: SendWebhook = async (delivery) => {
    const started = performance.now();
    let result: Result;
    try {
      result = await this.attempt(delivery);
    } catch (err) {
      result = failed(`request failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { ...result, latencyMs: Math.round(performance.now() - started) };
  };

  /** Waits for deliveries in flight, then closes every connection. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async attempt(delivery: WebhookDelivery): Promise<Result> {
    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      return failed('request failed: invalid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return failed(`request failed: unsupported protocol ${url.protocol}`);
    const signal = AbortSignal.timeout(this.timeoutMs);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, {
        method: 'POST',
        dispatcher: this.dispatcher,
        headers: signedHeaders(delivery.id, delivery.body, delivery.secrets, delivery.now),
        body: delivery.body,
        signal,
      });
    } catch (err) {
      return failed(this.describe(err, signal));
    }
    const status = answer.statusCode;
    const ok = status >= 200 && status < 300;
    return { ok, status, error: ok ? undefined : `endpoint answered HTTP ${status}`, responseExcerpt: await excerpt(answer.body) };
  }

  private describe(err: unknown, signal: AbortSignal): string {
    const e = err as NodeJS.ErrnoException;
    if (signal.aborted || TIMEOUT_CODES.has(e.code ?? '')) return `no answer within ${this.timeoutMs} ms (timeout)`;
    return e.code ? `connection failed: ${e.code} (${e.message})` : `request failed: ${e.message}`;
  }
}

/**
 * Up to RESPONSE_EXCERPT_BYTES of the body. Leaving the loop early destroys the body, which
 * closes a connection whose answer was not over; a complete answer leaves it open for reuse.
 */
async function excerpt(body: Readable): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) break;
    }
  } catch {
    // The status has arrived and decides the outcome; a body cut short (timeout, reset) keeps what came.
  } finally {
    body.destroy();
  }
  return size === 0 ? undefined : Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
}
