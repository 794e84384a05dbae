import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import type { DeliveryOutcome, SendWebhook, WebhookDelivery } from '../domain/webhooks/webhook-sending.js';
import type { WebhookTargetPolicy } from '../domain/webhooks/webhook-targets.js';
import { guardedConnector, TargetNotAllowedError } from './webhook-connector.js';
import { signedHeaders } from './webhook-signature.js';

/** How much of an endpoint's answer is read and kept with an attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface WebhookSenderOptions {
  /** Bounds a whole attempt: connecting, the answer's status and the read of its first 1 KiB. */
  timeoutMs: number;
  /** Which addresses deliveries may reach; checked on every new connection. */
  targets: WebhookTargetPolicy;
  /** DNS lookup for endpoint names; the system resolver unless a test gives its own. */
  lookup?: LookupFunction;
}

/**
 * The one place the outbound HTTP client is built. Every new connection goes through the target
 * policy; connections to endpoints are kept alive between deliveries; each phase has its own
 * timeout, and the whole attempt is bounded by the sender's signal as well.
 */
export function createWebhookDispatcher(opts: WebhookSenderOptions): Dispatcher {
  return new Agent({
    connections: 256,
    keepAliveTimeout: 4_000,
    connect: guardedConnector(opts.targets, opts.timeoutMs, opts.lookup),
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
}

type Result = Omit<DeliveryOutcome, 'latencyMs'>;

const failed = (error: string): Result => ({ ok: false, status: undefined, error, responseExcerpt: undefined });

/** A receiver's 409 means it already has the event: delivered, like a 2xx. */
const isDelivered = (status: number) => (status >= 200 && status < 300) || status === 409;

/**
 * POSTs signed webhook deliveries. 2xx and 409 are delivered; a redirect is not followed (it is a
 * failed attempt); at most 1 KiB of the answer is read, then the body is dropped (closing the
 * connection if more was coming). Every failure is an outcome: send never throws. Failures before
 * an answer share one message, so attempts tell nobody which addresses and ports exist.
 */
export class WebhookSender {
  private readonly timeoutMs: number;
  private readonly dispatcher: Dispatcher;

  constructor(opts: WebhookSenderOptions) {
    this.timeoutMs = opts.timeoutMs;
    this.dispatcher = createWebhookDispatcher(opts);
  }

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
    const headers = signedHeaders(delivery);
    const signal = AbortSignal.timeout(this.timeoutMs);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, { method: 'POST', dispatcher: this.dispatcher, headers, body: delivery.body, signal });
    } catch (err) {
      return failed(err instanceof TargetNotAllowedError ? `not sent: ${err.message}` : this.noAnswer());
    }
    const status = answer.statusCode;
    const ok = isDelivered(status);
    return { ok, status, error: ok ? undefined : `endpoint answered HTTP ${status}`, responseExcerpt: await excerpt(answer.body) };
  }

  /** Refused, unreachable, reset or silent: one message, so an attempt does not tell a closed port from a filtered one. */
  private noAnswer(): string {
    return `no answer: could not connect, or no response within ${this.timeoutMs} ms`;
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
