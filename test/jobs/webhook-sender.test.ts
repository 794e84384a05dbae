import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebhookTargetPolicy } from '../../src/domain/webhooks/webhook-targets.js';
import { WebhookSender } from '../../src/jobs/webhook-sender.js';
import { signingKeys, verifiesBothWays } from '../helpers/webhook-signing.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const KEYS = signingKeys();
const delivery = (url: string) => ({ url, id: 'Webhook:test-1', body: '{"id":"Webhook:test-1","type":"TEST","data":{}}', secrets: [SECRET], signingKey: KEYS.privateKey });
/** A loopback-bound sandbox's policy: these endpoints live on 127.0.0.1. */
const LOCAL = WebhookTargetPolicy.forServer({ host: '127.0.0.1', serviceEnv: 'sandbox', webhookAllowedNetworks: [] });
const senders = new Map<number, WebhookSender>();
/** One sender per timeout, as a process has one per WEBHOOK_TIMEOUT_MS. */
const send = (url: string, timeoutMs = 2000) => {
  if (!senders.has(timeoutMs)) senders.set(timeoutMs, new WebhookSender({ timeoutMs, targets: LOCAL }));
  return senders.get(timeoutMs)!.send(delivery(url));
};
afterAll(async () => {
  for (const s of senders.values()) await s.close();
});

interface Endpoint {
  url: string;
  server: Server;
  requests: { method: string; headers: IncomingMessage['headers']; body: string; raw: Buffer }[];
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
      const raw = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', headers: req.headers, body: raw.toString('utf8'), raw });
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

  it('reports a refused connection and a silent endpoint with one message, so attempts do not map ports', async () => {
    const gone = await endpoint(() => undefined);
    await new Promise((r) => gone.server.close(r));
    const refused = await send(gone.url, 300);
    const silent = await endpoint(() => undefined);
    const timedOut = await send(silent.url, 300);
    expect(refused).toMatchObject({ ok: false, status: undefined, responseExcerpt: undefined });
    expect(timedOut).toMatchObject({ ok: false, status: undefined, responseExcerpt: undefined });
    expect(refused.error).toBe('no answer: could not connect, or no response within 300 ms');
    expect(timedOut.error).toBe(refused.error);
  });

  it('gives up on an endpoint that never answers once the timeout has passed', async () => {
    const silent = await endpoint(() => undefined);
    const outcome = await send(silent.url, 300);
    expect(outcome).toMatchObject({ ok: false, status: undefined, error: 'no answer: could not connect, or no response within 300 ms' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(280);
    expect(outcome.latencyMs).toBeLessThan(1500);
    expect(silent.requests).toHaveLength(1);
    await silent.closed;
  });

  it('reads at most 1 KiB of an answer that never ends, then resolves and closes the connection', async () => {
    const endless = await endpoint((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write('x'.repeat(300));
      }, 2);
      res.on('close', () => clearInterval(timer));
    });
    const outcome = await send(endless.url, 5000);
    expect(outcome).toMatchObject({ ok: true, status: 200, error: undefined });
    expect(outcome.responseExcerpt).toBe('x'.repeat(1024));
    expect(outcome.latencyMs).toBeLessThan(2000);
    // The sender closed the connection: the endpoint's writes stop there.
    await endless.closed;
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

  it('bounds the whole attempt by the timeout when the answer trickles in a byte at a time', async () => {
    const trickling = await endpoint((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('.')), 20);
      res.on('close', () => clearInterval(timer));
    });
    const outcome = await send(trickling.url, 300);
    expect(outcome).toMatchObject({ ok: true, status: 200 });
    expect(outcome.responseExcerpt!.length).toBeGreaterThan(0);
    expect(outcome.responseExcerpt!.length).toBeLessThan(1024);
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(280);
    expect(outcome.latencyMs).toBeLessThan(1000);
    await trickling.closed;
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

  it('counts a 409 (the receiver already has the event) as delivered', async () => {
    const duplicate = await endpoint((_req, res) => res.writeHead(409, { 'content-type': 'application/json' }).end('{"error":"already processed"}'));
    expect(await send(duplicate.url)).toMatchObject({ ok: true, status: 409, error: undefined, responseExcerpt: '{"error":"already processed"}' });
  });

  it.each([400, 401, 404, 410, 422, 429, 500, 503])('counts a %i as not delivered', async (status) => {
    const refusing = await endpoint((_req, res) => res.writeHead(status).end());
    expect(await send(refusing.url)).toMatchObject({ ok: false, status, error: `endpoint answered HTTP ${status}` });
  });

  it('POSTs the exact body signed both ways: X-Grid-Signature and Standard Webhooks', async () => {
    let checks: ReturnType<typeof verifiesBothWays> | undefined;
    const receiver = await endpoint((req, res) => {
      checks = verifiesBothWays(receiver.requests.at(-1)!.raw, req.headers, { secret: SECRET, publicKey: KEYS.publicKey });
      res.writeHead(checks.grid && checks.standard ? 202 : 401, { 'content-type': 'application/json' }).end('{"received":true}');
    });
    const outcome = await send(receiver.url);
    expect(checks).toEqual({ grid: true, standard: true });
    expect(outcome).toMatchObject({ ok: true, status: 202, error: undefined, responseExcerpt: '{"received":true}' });
    expect(receiver.requests).toEqual([
      expect.objectContaining({
        method: 'POST',
        body: delivery(receiver.url).body,
        headers: expect.objectContaining({ 'content-type': 'application/json', 'webhook-id': 'Webhook:test-1', 'x-grid-signature': expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) }),
      }),
    ]);
  });
});
