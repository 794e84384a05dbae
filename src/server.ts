import './v8-flags.js';
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { printBanner } from './banner.js';
import { superviseCluster } from './cluster.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { bootstrapIfEmpty } from './domain/platform/platforms.js';
import { openServices } from './services.js';
import { WebhookTargetPolicy } from './domain/webhooks/webhook-targets.js';
import { startWorker } from './jobs/index.js';
import { WebhookSender } from './jobs/webhook-sender.js';

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
  if (config.httpProcesses > 1) return superviseCluster(config);
  return serve(config, true);
}

/** One server process: API, and the job worker unless disabled. */
async function serve(config: Config, primary: boolean): Promise<void> {
  const sender = new WebhookSender({ timeoutMs: config.webhookTimeoutMs, targets: WebhookTargetPolicy.forServer(config) });
  const services = await openServices(config, sender.send);
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
    const force = setTimeout(() => {
      app.log.error({ shutdownTimeoutMs: config.shutdownTimeoutMs }, 'requests or jobs still running after SHUTDOWN_TIMEOUT_MS: exiting without them');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    // close() ends only the connections idle at that moment; a keep-alive connection whose request
    // was in flight would stay open until its idle timeout (72 s): end each as soon as it is idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    // The worker claims nothing more from now, so the drain takes at most the longest request or
    // running job, which SHUTDOWN_TIMEOUT_MS outlasts by default.
    const drained = app.close().then(() => {
      clearInterval(sweep);
      app.log.info('requests drained; waiting for running jobs');
    });
    await Promise.all([drained, worker?.stop()]);
    await sender.close();
    await services.store.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
