import cluster from 'node:cluster';
import { createServer, type AddressInfo } from 'node:net';
import { printBanner } from './banner.js';
import type { Config } from './config.js';
import { bootstrapIfEmpty } from './domain/platform/platforms.js';
import { openServices } from './services.js';

/**
 * HTTP_PROCESSES > 1: this process migrates and bootstraps, then runs that many server processes
 * sharing the port, restarting any that dies. On SQLite only the first runs the job worker (one
 * writer does the background work); on PostgreSQL every one does.
 */
export async function superviseCluster(config: Config): Promise<void> {
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

  // Each server process bounds its own drain (SHUTDOWN_TIMEOUT_MS), so this waits at most that long.
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
