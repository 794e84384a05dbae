import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openServices } from '../src/services.js';
import { createTestDatabase, ENGINES, type TestDatabase } from './helpers/engines.js';
import { startServerProcess, type ServerProcess } from './helpers/server-process.js';
import { activeCardOver, fetchCall } from './helpers/fixtures.js';
import { HoldingReceiver } from './helpers/holding-receiver.js';
import { engineAvailable } from './helpers/test-app.js';
import { fundCustomerAt } from './helpers/money.js';
import { until } from './helpers/until.js';

/** A POST whose headers and first bytes of body go out now, and the rest on finish(). */
function slowRequest(base: string, authorization: string, body: unknown) {
  const bytes = Buffer.from(JSON.stringify(body));
  const req = request(`${base}/tokens`, { method: 'POST', agent: false, headers: { authorization, 'content-type': 'application/json', 'content-length': bytes.length } });
  const answer = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  const headersSent = new Promise<void>((resolve) => req.write(bytes.subarray(0, 10), () => resolve()));
  return { headersSent, finish: () => (req.end(bytes.subarray(10)), answer) };
}

/** Resolves once a new connection to the port is refused. */
async function expectRefused(port: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    });
    if (refused) return;
    if (Date.now() > deadline) throw new Error(`port ${port} still accepts connections ${timeoutMs} ms after SIGTERM`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`server process [${engine}]`, () => {
    let db: TestDatabase;
    let server: ServerProcess | undefined;
    let receiver: HoldingReceiver | undefined;
    let drainDb: TestDatabase | undefined;
    beforeAll(async () => {
      db = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await server?.kill();
      await receiver?.stop();
      await db.drop();
      await drainDb?.drop();
    });

    it('prints working credentials on first start only, and keeps cursors valid across a restart', { timeout: 90_000 }, async () => {
      server = await startServerProcess(db.env);
      const secret = /Client secret:\s+(\S+)/.exec(server.output())?.[1];
      const clientId = /Client id:\s+(\S+)/.exec(server.output())?.[1];
      expect(secret && clientId).toBeTruthy();
      expect(server.output()).toContain(`curl -u '${clientId}:${secret}'`);
      const auth = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
      const h = { authorization: auth, 'content-type': 'application/json' };

      expect((await fetch(`${server.baseUrl}/no-such-path`)).status).toBe(401);
      const notFound = await fetch(`${server.baseUrl}/no-such-path`, { headers: h });
      expect(notFound.status).toBe(404);
      expect(await notFound.json()).toMatchObject({ status: 404, code: 'REFERENCE_NOT_FOUND' });

      await fetch(`${server.baseUrl}/tokens`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'second', permissions: ['VIEW'] }) });
      const page = await (await fetch(`${server.baseUrl}/tokens?limit=1`, { headers: h })).json();
      expect(page.hasMore).toBe(true);

      expect(await server.stop('SIGTERM')).toBe(0);

      server = await startServerProcess(db.env);
      expect(server.output()).not.toContain('Client secret');
      const next = await fetch(`${server.baseUrl}/tokens?limit=1&cursor=${page.nextCursor}`, { headers: h });
      expect(next.status).toBe(200);
      expect((await next.json()).data[0].name).toBe('second');
      expect(await server.stop('SIGTERM')).toBe(0);
    });

    it('drains on SIGTERM: refuses new connections, answers the requests in flight and finishes the running delivery, then exits 0', { timeout: 90_000 }, async () => {
      // A database of its own: the first start prints credentials.
      drainDb = await createTestDatabase(engine);
      server = await startServerProcess({ ...drainDb.env, JOB_POLL_MS: '20', LOG_LEVEL: 'info' });
      const base = server.baseUrl;
      const auth = server.auth!;
      const call = async (method: string, path: string, body?: unknown) => {
        const json: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
        const res = await fetch(`${base}${path}`, { method, headers: { authorization: auth, ...json }, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: await res.json() };
      };
      const customer = await call('POST', '/customers', { customerType: 'INDIVIDUAL' });
      // Funded before the endpoint is set, so the funding's balance event is stored, not delivered.
      await fundCustomerAt(base, auth, customer.body.id);
      receiver = await new HoldingReceiver().start();
      receiver.trust((await call('PATCH', '/config', { webhookEndpoint: receiver.url })).body);
      const card = await activeCardOver(fetchCall(base, auth), customer.body.id);
      const accepted = await call('POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 700, currency: { code: 'USD' }, merchant: { descriptor: 'DRAIN TEST' } });
      expect([customer.status, card.state, accepted.status]).toEqual([201, 'ACTIVE', 202]);
      // In flight: a delivery job whose endpoint has not answered, a test webhook request waiting on
      // the same endpoint, and a request whose body is half sent.
      await receiver.waitFor('the authorization webhook', () => receiver!.verified.some((d) => d.type === 'CARD_TRANSACTION.AUTHORIZED'));
      const testWebhook = call('POST', '/sandbox/webhooks/test');
      await receiver.waitFor('the test webhook', () => receiver!.verified.some((d) => d.type === 'TEST'));
      const slow = slowRequest(base, auth, { name: 'sent slowly', permissions: ['VIEW'] });
      await slow.headersSent;
      await new Promise((r) => setTimeout(r, 200));

      server.child.kill('SIGTERM');
      await expectRefused(new URL(base).port);
      expect(server.child.exitCode).toBeNull();
      const created = await slow.finish();
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'sent slowly', permissions: ['VIEW'] });
      receiver.release('TEST');
      expect(await testWebhook).toMatchObject({ status: 200, body: { response_status: 200 } });
      // Every request is answered; the worker still waits on the delivery, so the process does too.
      await until('the requests drained', async () => (server!.output().includes('requests drained; waiting for running jobs') ? true : undefined));
      expect(server.child.exitCode).toBeNull();
      expect(receiver.inFlight).toBeGreaterThan(0);

      receiver.release();
      expect(await server.exited, server.output()).toBe(0);
      const services = await openServices(loadConfig({ ...drainDb.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent' }));
      try {
        const event = await services.store.db.selectFrom('webhook_events').select(['id', 'delivery_state']).where('type', '=', 'CARD_TRANSACTION.AUTHORIZED').executeTakeFirstOrThrow();
        expect(event.delivery_state).toBe('DELIVERED');
        const attempts = await services.store.db.selectFrom('webhook_attempts').select('response_status').where('event_id', '=', event.id).execute();
        expect(attempts).toEqual([{ response_status: 200 }]);
      } finally {
        await services.store.close();
      }
    });

    it('refuses to start with a bad setting, naming it', async () => {
      await expect(startServerProcess({ ...db.env, SERVICE_ENV: 'staging' }, 15_000)).rejects.toThrow(/SERVICE_ENV/);
    });
  });
}

// The bound is the process's whatever its engine, so SQLite alone.
describe('shutdown bound', () => {
  let db: TestDatabase;
  let server: ServerProcess | undefined;
  let receiver: HoldingReceiver | undefined;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await server?.kill();
    await receiver?.stop();
    await db.drop();
  });

  it('after SIGTERM a request held open is answered, and the process exits by itself at SHUTDOWN_TIMEOUT_MS with a job still running', { timeout: 60_000 }, async () => {
    server = await startServerProcess({ ...db.env, SHUTDOWN_TIMEOUT_MS: '2000', JOB_POLL_MS: '20' });
    const call = fetchCall(server.baseUrl, server.auth!);
    receiver = await new HoldingReceiver().start();
    receiver.trust((await call('PATCH', '/config', { webhookEndpoint: receiver.url })).body as { webhookSecret: string; webhookPublicKey: string });
    // In flight: the delivery of the customer's KYC approval (a running job) and a test webhook request, both held by the receiver.
    expect((await call('POST', '/customers', { customerType: 'INDIVIDUAL' })).status).toBe(201);
    await receiver.waitFor('the KYC approval', () => receiver!.verified.some((d) => d.type === 'CUSTOMER.KYC_APPROVED'));
    const testWebhook = call('POST', '/sandbox/webhooks/test');
    await receiver.waitFor('the test webhook', () => receiver!.verified.some((d) => d.type === 'TEST'));

    const signalled = performance.now();
    server.child.kill('SIGTERM');
    await expectRefused(new URL(server.baseUrl).port);
    expect(server.child.exitCode).toBeNull();
    receiver.release('TEST');
    expect(await testWebhook).toMatchObject({ status: 200, body: { response_status: 200 } });

    expect(await server.exited, server.output()).toBe(1);
    const tookMs = performance.now() - signalled;
    // Node may fire a timer a millisecond early; the old bound was a fixed 15 s.
    expect(tookMs).toBeGreaterThanOrEqual(1_990);
    expect(tookMs).toBeLessThan(10_000);
    expect(server.output()).toContain('still running after SHUTDOWN_TIMEOUT_MS');
  });
});
