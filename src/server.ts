import './v8-flags.js';
import cluster from 'node:cluster';
import { createServer, type AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { API_VERSION, ConfigError, loadConfig, type Config } from './config.js';
import { bootstrapIfEmpty } from './domain/platforms.js';
import { openServices } from './domain/services.js';
import type { CreatedApiToken } from './domain/tokens.js';
import { startWorker } from './jobs/index.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (cluster.isWorker) return serve(config, false);
  if (config.httpProcesses > 1) return supervise(config);
  return serve(config, true);
}

/** One server process: API, and the job worker unless disabled. */
async function serve(config: Config, primary: boolean): Promise<void> {
  const services = await openServices(config);
  const firstToken = primary ? await bootstrapIfEmpty(services.store, services.tokens) : undefined;
  const app = await buildApp(services, { logger: { level: config.logLevel } });
  await app.listen({ host: config.host, port: config.port });
  const worker = config.workerEnabled ? startWorker(services, app.log) : undefined;
  if (primary) printBanner(config, (app.server.address() as AddressInfo).port, firstToken, services.store.engine, 1);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining requests and jobs');
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await app.close();
    await worker?.stop();
    await services.store.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * HTTP_PROCESSES > 1: this process migrates and bootstraps, then runs that many server processes
 * sharing the port, restarting any that dies. On SQLite only the first runs the job worker (one
 * writer does the background work); on PostgreSQL every one does.
 */
async function supervise(config: Config): Promise<void> {
  const services = await openServices(config);
  const firstToken = await bootstrapIfEmpty(services.store, services.tokens);
  const engine = services.store.engine;
  await services.store.close();
  // In a cluster every listen(0) gets its own port; choose one here so all processes share it.
  const port = config.port === 0 ? await freePort(config.host) : config.port;

  // Round-robin: this process accepts and hands each connection to the next server process, so
  // keep-alive connections spread evenly (with SCHED_NONE the kernel let one process take two
  // thirds of them: it saturated while the other idled). A connection handed over at the moment
  // its process dies is lost, as with any crash; the client reconnects.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  let closing = false;
  const fork = (index: number) => {
    const worker = config.workerEnabled && (engine === 'postgres' || index === 0) ? '1' : '0';
    const child = cluster.fork({ WORKER_ENABLED: worker, PORT: String(port) });
    child.on('exit', (code, signal) => {
      if (closing) return;
      process.stderr.write(`server process ${index} exited (${signal ?? code}); starting another\n`);
      setTimeout(() => fork(index), 500);
    });
    return child;
  };
  const children = Array.from({ length: config.httpProcesses }, (_, i) => fork(i));
  children[0]!.once('listening', (address) => printBanner(config, address.port, firstToken, engine, config.httpProcesses));

  const shutdown = () => {
    if (closing) return;
    closing = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w) => w && !w.isDead());
    if (alive.length === 0) process.exit(0);
    let left = alive.length;
    for (const w of alive) {
      w!.once('exit', () => --left === 0 && process.exit(0));
      w!.process.kill('SIGTERM');
    }
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function printBanner(config: Config, port: number, token: CreatedApiToken | undefined, engine: string, processes: number): void {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}/${API_VERSION}`;
  const lines = [
    '',
    `Payments service ${API_VERSION} (${config.serviceEnv}, ${engine}${processes > 1 ? `, ${processes} processes` : ''}) listening`,
    `  Base URL:  ${base}`,
    `  Docs:      ${base}/docs`,
    `  OpenAPI:   ${base}/openapi.json`,
  ];
  if (token) {
    lines.push(
      '',
      'First start: created a sandbox platform and an API token. The secret is shown only now:',
      `  Token id:      ${token.id}`,
      `  Client id:     ${token.clientId}`,
      `  Client secret: ${token.clientSecret}`,
      '',
      'Try it:',
      `  curl -u '${token.clientId}:${token.clientSecret}' '${base}/tokens'`,
    );
  } else {
    lines.push('', 'Need credentials? npm run --silent cli -- tokens create');
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
