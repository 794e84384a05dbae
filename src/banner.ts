import { API_VERSION, type Config } from './config.js';
import type { CreatedApiToken } from './domain/platform/tokens.js';

/** What the server prints once it listens: where it is and, on a first start, the credentials. */
export function printBanner(config: Config, port: number, token: CreatedApiToken | undefined, engine: string, processes: number): void {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}/${API_VERSION}`;
  const lines = [
    '',
    `Payments service ${API_VERSION} (${config.serviceEnv}, ${engine}${processes > 1 ? `, ${processes} processes` : ''}) listening`,
    `  Base URL:  ${base}`,
    `  Docs:      ${base}/docs`,
    `  OpenAPI:   ${base}/openapi.json`,
  ];
  if (config.serviceEnv !== 'production') lines.push(`  Console:   ${base.slice(0, -API_VERSION.length)}console (sign in with a token's client id and secret)`);
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
