/**
 * `npm run bench -- card-round-trips [--engine sqlite|postgres|both] [--count 200] [--rounds 3] [--trace]`
 *
 * One card authorization at a time, in one process (the server, its worker, a verifying receiver
 * and this client): per authorization, the time from its 202 to its verified webhook, and on
 * PostgreSQL the statements sent (every pg client's query counted) from the request to the 202,
 * from the 202 to the webhook, and after it (the delivery's completion) until the next request.
 * `--trace` prints the statements of one authorization, in order, with their times.
 * At low load this is the latency of the path itself, not of queues.
 */
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { bootstrapIfEmpty } from '../src/domain/platform/platforms.js';
import { WebhookTargetPolicy } from '../src/domain/webhooks/webhook-targets.js';
import { startWorker } from '../src/jobs/index.js';
import { WebhookSender } from '../src/jobs/webhook-sender.js';
import { WebhookReceiver } from '../src/cli/webhook-receiver.js';
import { openServices } from '../src/services.js';
import { ENGINE_LABEL, emptyDatabase, parseEngines, type Engine } from './engines.js';
import { percentile } from './stats.js';

/** Every statement any pg client of this process sends: its time and text. */
const sent: { at: number; text: string }[] = [];
let counting = false;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const a = args[0] as string | { text?: string };
    sent.push({ at: performance.now(), text: typeof a === 'string' ? a : a?.text ?? '?' });
  }
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sample {
  latency: number;
  before202: number;
  toWebhook: number;
  after: number;
}

async function runEngine(engine: Engine, count: number, rounds: number, trace: boolean): Promise<void> {
  const db = await emptyDatabase(engine, `rt_${process.pid}`);
  const config = loadConfig({ ...process.env, ...db.env, SERVICE_ENV: 'sandbox', WORKER_ENABLED: '1', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: '0' });
  const sender = new WebhookSender({ timeoutMs: config.webhookTimeoutMs, targets: WebhookTargetPolicy.forServer(config) });
  const services = await openServices(config, sender.send);
  const token = (await bootstrapIfEmpty(services.store, services.tokens))!;
  const app = await buildApp(services, { logger: { level: 'warn' } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const worker = startWorker(services, app.log);
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/2025-10-13`;
  const auth = `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString('base64')}`;
  const arrived = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const receiver = new WebhookReceiver({
    onDelivery: (d) => {
      const t = (d.payload?.operation as { issuerTransactionToken?: string } | undefined)?.issuerTransactionToken;
      if (!d.verified || !t || arrived.has(t)) return;
      arrived.set(t, d.receivedAtHr);
      waiting.get(t)?.();
    },
  });
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const customer = await api('POST', '/customers', {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Probe Co', incorporatedOn: '2020-01-01', taxId: '99-9999999' },
      address: { line1: '1 Probe St', postalCode: '94105', country: 'US' },
    });
    await api('POST', '/verifications', { customerId: customer.id });
    const account = (await api('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}&type=INTERNAL_FIAT&currency=USD`)).data[0];
    await api('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000_000_000 });
    const card = (await api('POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [account.id] })).id;
    while ((await api('GET', `/cards/${card}`)).state !== 'ACTIVE') await settle(20);
    await receiver.start();
    receiver.trust(await api('PATCH', '/config', { webhookEndpoint: receiver.url }));
    receiver.deliveries.push = () => 0;
    await settle(300);
    const body = JSON.stringify({ amount: 1250, currency: { code: 'USD' }, merchant: { descriptor: 'PROBE COFFEE', country: 'US' } });
    const one = async (): Promise<{ sample: Sample; trace: { at: number; text: string }[] }> => {
      sent.length = 0;
      counting = true;
      const started = performance.now();
      const res = await fetch(`${base}/sandbox/cards/${card}/simulate/authorization`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });
      const at202 = performance.now();
      const { issuerTransactionToken: t } = (await res.json()) as { issuerTransactionToken: string };
      if (res.status !== 202) throw new Error(`authorization: ${res.status}`);
      if (!arrived.has(t)) await new Promise<void>((resolve) => waiting.set(t, resolve));
      waiting.delete(t);
      const atHook = arrived.get(t)!;
      // The delivery's completion write, and anything else this authorization set off.
      await settle(40);
      counting = false;
      const trace = sent.map((s) => ({ at: s.at - started, text: s.text }));
      const sample = {
        latency: atHook - at202,
        before202: sent.filter((s) => s.at < at202).length,
        toWebhook: sent.filter((s) => s.at >= at202 && s.at < atHook).length,
        after: sent.filter((s) => s.at >= atHook).length,
      };
      return { sample, trace };
    };
    for (let i = 0; i < 20; i++) await one(); // warm-up: connections, prepared statements, JIT
    for (let r = 0; r < rounds; r++) {
      const samples: Sample[] = [];
      let shown: { at: number; text: string }[] = [];
      for (let i = 0; i < count; i++) {
        const { sample, trace: tr } = await one();
        samples.push(sample);
        if (i === Math.floor(count / 2)) shown = tr;
      }
      const lat = samples.map((s) => s.latency).sort((a, b) => a - b);
      const med = (f: (s: Sample) => number) => percentile(samples.map(f).sort((a, b) => a - b), 50);
      process.stdout.write(
        `  ${ENGINE_LABEL[engine].padEnd(10)} round ${r + 1}: ${count} sequential authorizations, 202 -> webhook p50 ${lat.length ? percentile(lat, 50).toFixed(1) : '-'} ms, p90 ${percentile(lat, 90).toFixed(1)} ms` +
          (engine === 'postgres' ? `; statements (median) request->202 ${med((s) => s.before202)}, 202->webhook ${med((s) => s.toWebhook)}, after the webhook ${med((s) => s.after)}` : '') +
          '\n',
      );
      if (trace && engine === 'postgres' && r === 0) {
        for (const s of shown) process.stdout.write(`      ${s.at.toFixed(1).padStart(7)} ms  ${s.text.replace(/\s+/g, ' ').slice(0, 150)}\n`);
      }
    }
  } finally {
    await receiver.stop();
    await app.close();
    await worker.stop();
    await sender.close();
    await services.store.close();
    // The pool reports closed before its sockets are: a forced drop meanwhile ends them with an error.
    await settle(500);
    await db.drop();
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      engine: { type: 'string', default: 'both' },
      count: { type: 'string', default: '200' },
      rounds: { type: 'string', default: '3' },
      trace: { type: 'boolean', default: false },
    },
  });
  process.stdout.write('Card authorizations one at a time (server, worker and receiver in this process):\n');
  for (const engine of parseEngines(values.engine)) await runEngine(engine, Number(values.count), Number(values.rounds), values.trace);
}
