import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebhookSender } from '../../src/jobs/webhook-sender.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const delivery = (url: string) => ({ url, id: 'Webhook:test-1', body: '{"id":"Webhook:test-1","type":"WEBHOOK.TEST"}', secrets: [SECRET] });
const senders = new Map<number, WebhookSender>();
/** One sender per timeout, as a process has one per WEBHOOK_TIMEOUT_MS. */
const send = (url: string, timeoutMs = 2000) => {
  if (!senders.has(timeoutMs)) senders.set(timeoutMs, new WebhookSender(timeoutMs));
  return senders.get(timeoutMs)!.send(delivery(url));
};
afterAll(async () => {
  for (const s of senders.values()) await s.close();
});

interface Endpoint {
  url: string;
  server: Server;
  requests: { method: string; headers: IncomingMessage['headers']; body: string }[];
  /** Resolves when a connection to the endpoint closes. */
  closed: Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A real HTTP endpoint on 127.0.0.1 whose answer `handle` writes once the request body is in. */
async function endpoint(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Endpoint> {
  const requests: Endpoint['requests'] = [];
  let onClose!: () => void;
  const closed = new Promise<void>((r) => (onClose = r));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      handle(req, res);
    });
  });
  server.on('connection', (socket: Socket) => socket.on('close', onClose));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server, requests, closed };
}

describe('sending one webhook', () => {
  it('reports an invalid URL as a failed attempt instead of throwing', async () => {
    const outcome = await send('not a url');
    expect(outcome).toMatchObject({ ok: false, status: undefined, error: 'request failed: invalid URL', responseExcerpt: undefined });
  });

  it('reports an unsupported protocol as a failed attempt', async () => {
    const outcome = await send('ftp://127.0.0.1/hook');
    expect(outcome).toMatchObject({ ok: false, status: undefined, error: 'request failed: unsupported protocol ftp:' });
  });

  it('reports a refused connection', async () => {
    const gone = await endpoint(() => undefined);
    await new Promise((r) => gone.server.close(r));
    const outcome = await send(gone.url);
    expect(outcome).toMatchObject({ ok: false, status: undefined });
    expect(outcome.error).toMatch(/^connection failed: ECONNREFUSED/);
  });

  it('gives up on an endpoint that never answers once the timeout has passed', async () => {
    const silent = await endpoint(() => undefined);
    const outcome = await send(silent.url, 300);
    expect(outcome).toMatchObject({ ok: false, status: undefined, error: 'no answer within 300 ms (timeout)' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(280);
    expect(outcome.latencyMs).toBeLessThan(1500);
    expect(silent.requests).toHaveLength(1);
    await silent.closed;
  });

  it('reads at most 1 KiB of an answer that never ends, then resolves and closes the connection', async () => {
    let written = 0;
    const endless = await endpoint((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write('x'.repeat(300));
        written += 300;
      }, 2);
      res.on('close', () => clearInterval(timer));
    });
    const outcome = await send(endless.url, 5000);
    expect(outcome).toMatchObject({ ok: true, status: 200, error: undefined });
    expect(outcome.responseExcerpt).toBe('x'.repeat(1024));
    expect(outcome.latencyMs).toBeLessThan(2000);
    await endless.closed;
    const afterClose = written;
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBe(afterClose);
  });

  it('keeps to the timeout when the status came but the body stalls: the status decides, the excerpt is what arrived', async () => {
    const stalling = await endpoint((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const outcome = await send(stalling.url, 300);
    expect(outcome).toMatchObject({ ok: true, status: 200, error: undefined, responseExcerpt: 'partial' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(280);
    expect(outcome.latencyMs).toBeLessThan(1500);
  });

  it('keeps the connection to an endpoint alive between deliveries', async () => {
    let connections = 0;
    const receiver = await endpoint((_req, res) => res.end('ok'));
    receiver.server.on('connection', () => (connections += 1));
    for (let i = 0; i < 3; i++) {
      expect(await send(receiver.url)).toMatchObject({ ok: true, status: 200, responseExcerpt: 'ok' });
      // The pool frees the connection a turn after the answer; a delivery sent sooner gets another one.
      await new Promise((r) => setImmediate(r));
    }
    expect(receiver.requests).toHaveLength(3);
    expect(connections).toBe(1);
  });

  it('does not follow a redirect: a 302 is a failed attempt', async () => {
    const target = await endpoint((_req, res) => res.end('moved here'));
    const redirecting = await endpoint((_req, res) => res.writeHead(302, { location: target.url }).end('see elsewhere'));
    const outcome = await send(redirecting.url);
    expect(outcome).toMatchObject({ ok: false, status: 302, error: 'endpoint answered HTTP 302', responseExcerpt: 'see elsewhere' });
    expect(target.requests).toHaveLength(0);
  });

  it('POSTs the body signed per Standard Webhooks and reports a 2xx as delivered', async () => {
    const receiver = await endpoint((req, res) => {
      try {
        const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
        new Webhook(SECRET).verify(receiver.requests.at(-1)!.body, headers);
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"received":true}');
      } catch (err) {
        res.writeHead(401).end(String(err));
      }
    });
    const outcome = await send(receiver.url);
    expect(outcome).toMatchObject({ ok: true, status: 202, error: undefined, responseExcerpt: '{"received":true}' });
    expect(receiver.requests).toEqual([
      expect.objectContaining({ method: 'POST', body: delivery(receiver.url).body, headers: expect.objectContaining({ 'content-type': 'application/json', 'webhook-id': 'Webhook:test-1' }) }),
    ]);
  });
});
