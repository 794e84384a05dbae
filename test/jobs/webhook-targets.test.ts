import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookTargetPolicy } from '../../src/domain/webhooks/webhook-targets.js';
import { WebhookSender } from '../../src/jobs/webhook-sender.js';
import { hostOf, INTERNAL_SPELLINGS } from '../helpers/internal-targets.js';
import { signingKeys } from '../helpers/webhook-signing.js';

const KEYS = signingKeys();
const NOT_ALLOWED = /^not sent: the endpoint's address is not allowed from this server/;
const TIMEOUT_MS = 1500;

const policy = (host: string, serviceEnv: 'sandbox' | 'production' = 'sandbox', webhookAllowedNetworks: string[] = []) =>
  WebhookTargetPolicy.forServer({ host, serviceEnv, webhookAllowedNetworks });
const EXPOSED = [policy('0.0.0.0'), policy('127.0.0.1', 'production')];

const senders: WebhookSender[] = [];
function sender(targets: WebhookTargetPolicy, lookup?: LookupFunction): WebhookSender {
  const s = new WebhookSender({ timeoutMs: TIMEOUT_MS, targets, ...(lookup ? { lookup } : {}) });
  senders.push(s);
  return s;
}
const deliver = (s: WebhookSender, url: string) =>
  s.send({ url, id: 'Webhook:targets', body: '{"id":"Webhook:targets","type":"TEST","data":{}}', secrets: [`whsec_${Buffer.alloc(32, 1).toString('base64')}`], signingKey: KEYS.privateKey });

/** A receiver whose answer would be worth stealing: if a refused delivery read any of it, the excerpt would show it. */
interface Internal {
  server: Server;
  port: number;
  requests: number;
}
async function internalService(address: string, answer: (res: ServerResponse) => void = (res) => res.end('internal-secret: s3cr3t')): Promise<Internal> {
  const svc = { requests: 0 } as Internal;
  svc.server = createServer((req: IncomingMessage, res) => {
    svc.requests += 1;
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((r) => svc.server.listen(0, address, r));
  svc.port = (svc.server.address() as AddressInfo).port;
  return svc;
}

/** A resolver that answers every name with the next of `answers`, as a rebinding DNS server would. */
function resolverOf(...answers: string[][]): LookupFunction & { calls: number } {
  const lookup = ((_hostname: string, options: { all?: boolean }, callback: (err: null, a: unknown, f?: number) => void) => {
    const addresses = answers[Math.min(lookup.calls, answers.length - 1)]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    lookup.calls += 1;
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction & { calls: number };
  lookup.calls = 0;
  return lookup;
}

/** Spellings of 127.0.0.1 that this machine can connect to (the rest are refused before any connection anyway). */
const LOOPBACK_V4 = ['127.0.0.1', '127.1', '0x7f.1', '2130706433', '017700000001', '0177.0.0.1', '127.0.0.1.', '[::ffff:127.0.0.1]', 'localhost'];

describe('webhook targets, checked on every connection', () => {
  let v4: Internal;
  let v6: Internal;
  const url = (spelling: string) => `http://${spelling}:${spelling === '[::1]' ? v6.port : v4.port}/hook`;

  beforeAll(async () => {
    v4 = await internalService('127.0.0.1');
    v6 = await internalService('::1');
  });
  afterAll(async () => {
    for (const s of senders) await s.close();
    for (const svc of [v4, v6]) {
      svc.server.closeAllConnections();
      await new Promise((r) => svc.server.close(r));
    }
  });
  afterEach(() => {
    v4.requests = 0;
    v6.requests = 0;
  });

  it.each(INTERNAL_SPELLINGS)('refuses %s (%s) on an exposed server without connecting or reading anything', async (spelling) => {
    for (const targets of EXPOSED) {
      const outcome = await deliver(sender(targets), url(spelling));
      expect(outcome).toMatchObject({ ok: false, status: undefined, responseExcerpt: undefined });
      expect(outcome.error).toMatch(NOT_ALLOWED);
      expect(outcome.error).not.toContain(hostOf(spelling).replace(/^\[|\]$/g, ''));
      expect(outcome.latencyMs).toBeLessThan(TIMEOUT_MS / 2);
    }
    expect(v4.requests + v6.requests).toBe(0);
  });

  it.each([...LOOPBACK_V4, '[::1]'])('delivers to %s on a loopback-bound sandbox', async (spelling) => {
    const outcome = await deliver(sender(policy('127.0.0.1')), url(spelling));
    expect(outcome).toMatchObject({ ok: true, status: 200, responseExcerpt: 'internal-secret: s3cr3t' });
    expect(v4.requests + v6.requests).toBe(1);
  });

  it.each(LOOPBACK_V4)('delivers to %s on an exposed server whose allow-list holds 127.0.0.0/8', async (spelling) => {
    const outcome = await deliver(sender(policy('0.0.0.0', 'production', ['127.0.0.0/8'])), url(spelling));
    expect(outcome).toMatchObject({ ok: true, status: 200 });
    expect(v4.requests).toBe(1);
  });

  it('keeps the allow-list to its networks: [::1] stays refused when only 127.0.0.0/8 is allowed', async () => {
    const outcome = await deliver(sender(policy('0.0.0.0', 'sandbox', ['127.0.0.0/8'])), url('[::1]'));
    expect(outcome.error).toMatch(NOT_ALLOWED);
    expect(v6.requests).toBe(0);
  });

  it('refuses a name that resolves to an internal address, and connects to a name resolving to an allowed one', async () => {
    const toLoopback = resolverOf(['127.0.0.1']);
    const refused = await deliver(sender(policy('0.0.0.0'), toLoopback), `http://hooks.example.test:${v4.port}/hook`);
    expect(refused).toMatchObject({ ok: false, status: undefined, responseExcerpt: undefined });
    expect(refused.error).toMatch(NOT_ALLOWED);
    expect(refused.error).not.toContain('127.0.0.1');
    expect(toLoopback.calls).toBe(1);
    expect(v4.requests).toBe(0);

    const allowed = await deliver(sender(policy('127.0.0.1'), resolverOf(['127.0.0.1'])), `http://hooks.example.test:${v4.port}/hook`);
    expect(allowed).toMatchObject({ ok: true, status: 200 });
    expect(v4.requests).toBe(1);
  });

  it('connects only to the allowed address of a name that resolves to several', async () => {
    // Another service on 127.0.0.2, same port: the name resolves to it first, and it must not be the one reached.
    const other = await internalService('127.0.0.2');
    const shared = await new Promise<Internal>((resolve) => {
      const svc = { requests: 0 } as Internal;
      svc.server = createServer((req, res) => {
        svc.requests += 1;
        req.resume().on('end', () => res.end('allowed'));
      }).listen(other.port, '127.0.0.1', () => resolve(Object.assign(svc, { port: other.port })));
    });
    try {
      const outcome = await deliver(sender(policy('0.0.0.0', 'sandbox', ['127.0.0.1/32']), resolverOf(['127.0.0.2', '10.0.0.7', '127.0.0.1'])), `http://mixed.example.test:${other.port}/hook`);
      expect(outcome).toMatchObject({ ok: true, status: 200, responseExcerpt: 'allowed' });
      expect([other.requests, shared.requests]).toEqual([0, 1]);
    } finally {
      for (const svc of [other, shared]) {
        svc.server.closeAllConnections();
        await new Promise((r) => svc.server.close(r));
      }
    }
  });

  it('checks the name again on every new connection, so DNS rebinding gets nowhere', async () => {
    const closing = await internalService('127.0.0.1', (res) => res.writeHead(200, { connection: 'close' }).end('ok'));
    try {
      const rebinding = resolverOf(['127.0.0.1'], ['10.9.9.9'], ['127.0.0.1']);
      const s = sender(policy('0.0.0.0', 'production', ['127.0.0.1/32']), rebinding);
      const target = `http://rebind.example.test:${closing.port}/hook`;
      const outcomes = [];
      for (let i = 0; i < 3; i++) outcomes.push(await deliver(s, target));
      expect(outcomes.map((o) => o.status)).toEqual([200, undefined, 200]);
      expect(outcomes[1]!.error).toMatch(NOT_ALLOWED);
      expect(rebinding.calls).toBe(3);
      expect(closing.requests).toBe(2);
    } finally {
      closing.server.closeAllConnections();
      await new Promise((r) => closing.server.close(r));
    }
  });
});
