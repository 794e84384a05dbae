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
  const services = await openServices(config);
  const firstToken = await bootstrapIfEmpty(services.store, services.tokens);
  const app = await buildApp(services, { logger: { level: config.logLevel } });
  await app.listen({ host: config.host, port: config.port });
  const worker = config.workerEnabled ? startWorker(services, app.log) : undefined;
  printBanner(config, app.server.address(), firstToken, services.store.engine);

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

function printBanner(config: Config, address: ReturnType<import('node:net').Server['address']>, token: CreatedApiToken | undefined, engine: string): void {
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}/${API_VERSION}`;
  const lines = [
    '',
    `Payments service ${API_VERSION} (${config.serviceEnv}, ${engine}) listening`,
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
