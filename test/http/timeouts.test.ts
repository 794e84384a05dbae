import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { BASE, describeEachEngine } from '../helpers/test-app.js';

/** Resolves with what the server sent and how long the connection stayed open, once it closes. */
function whenClosed(socket: Socket): Promise<{ ms: number; received: string }> {
  const started = Date.now();
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.on('close', () => resolve({ ms: Date.now() - started, received })));
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

it('defaults: 30 s for a request, 10 s for its headers, 72 s keep-alive, 10,000 connections; headers may not outlast the request', () => {
  const c = loadConfig({});
  expect([c.requestTimeoutMs, c.headersTimeoutMs, c.keepAliveTimeoutMs, c.maxConnections]).toEqual([30_000, 10_000, 72_000, 10_000]);
  expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' })).toThrow(/HEADERS_TIMEOUT_MS="2000": must not exceed REQUEST_TIMEOUT_MS/);
});

describeEachEngine(
  'request, header and body timeouts on a real socket',
  (t) => {
    let port = 0;
    beforeAll(async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      port = (t.app.server.address() as AddressInfo).port;
    });

    it('gives the listening server the configured timeouts and connection cap', () => {
      const { server } = t.app;
      expect([server.requestTimeout, server.headersTimeout, server.keepAliveTimeout, server.maxConnections]).toEqual([2_000, 1_000, 1_500, 3]);
    });

    it('a body trickled one byte at a time is cut off at the request deadline with an Error object', { timeout: 20_000 }, async () => {
      const socket = await open(port);
      const closed = whenClosed(socket);
      socket.write(`POST ${BASE}/customers HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.caller.auth}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
      const trickle = setInterval(() => socket.writable && socket.write('{'), 400);
      const { ms, received } = await closed;
      clearInterval(trickle);
      // REQUEST_TIMEOUT_MS is 2,000; Node checks deadlines every second.
      expect(ms).toBeGreaterThanOrEqual(1_900);
      expect(ms).toBeLessThan(4_500);
      expect(received).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, code: 'INVALID_REQUEST_FORMAT' });
    });

    it('headers trickled a byte at a time are cut off at the headers deadline', { timeout: 20_000 }, async () => {
      const socket = await open(port);
      const closed = whenClosed(socket);
      const head = `GET ${BASE}/tokens HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(200)}`;
      let i = 0;
      const trickle = setInterval(() => socket.writable && i < head.length && socket.write(head[i++]!), 200);
      const { ms, received } = await closed;
      clearInterval(trickle);
      // HEADERS_TIMEOUT_MS is 1,000.
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(3_500);
      expect(received).toMatch(/^HTTP\/1\.1 400 /);
    });

    it('an idle keep-alive connection is closed after the keep-alive timeout', { timeout: 20_000 }, async () => {
      const socket = await open(port);
      const closed = whenClosed(socket);
      socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
      const { ms, received } = await closed;
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      // KEEP_ALIVE_TIMEOUT_MS is 1,500.
      expect(ms).toBeGreaterThanOrEqual(1_400);
      expect(ms).toBeLessThan(4_500);
    });

    it('connections past the cap are closed at once', { timeout: 20_000 }, async () => {
      const held = [await open(port), await open(port), await open(port)];
      const extra = await open(port);
      const { ms, received } = await whenClosed(extra);
      expect(received).toBe('');
      expect(ms).toBeLessThan(1_000);
      for (const s of held) expect(s.destroyed).toBe(false);
      for (const s of held) s.destroy();
    });
  },
  { REQUEST_TIMEOUT_MS: '2000', HEADERS_TIMEOUT_MS: '1000', KEEP_ALIVE_TIMEOUT_MS: '1500', MAX_CONNECTIONS: '3' },
);
