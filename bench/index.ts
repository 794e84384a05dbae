import { existsSync } from 'node:fs';
import { BenchSetupError } from './engines.js';

/** `npm run bench -- <scenario> [options]`: runs bench/<scenario>.ts, which prints its own table. */
const SCENARIOS = ['bulk-import', 'card-round-trips', 'clock', 'list-owners', 'quotes', 'simulate', 'transfers', 'webhooks'];

const [name, ...args] = process.argv.slice(2);
const file = name && SCENARIOS.includes(name) ? new URL(`./${name}.ts`, import.meta.url) : undefined;
if (!file || !existsSync(file)) {
  process.stderr.write(`Usage: npm run bench -- <${SCENARIOS.join('|')}> [options]\n`);
  process.exit(2);
}
const scenario = (await import(file.href)) as { run(args: string[]): Promise<void> };
try {
  await scenario.run(args);
} catch (err) {
  if (!(err instanceof BenchSetupError || String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS'))) throw err;
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
