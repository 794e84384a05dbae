import { existsSync } from 'node:fs';

/** `npm run bench -- <scenario> [options]`: runs bench/<scenario>.ts, which prints its own table. */
const SCENARIOS = ['list-owners', 'simulate', 'webhooks'];

const [name, ...args] = process.argv.slice(2);
const file = name && SCENARIOS.includes(name) ? new URL(`./${name}.ts`, import.meta.url) : undefined;
if (!file || !existsSync(file)) {
  process.stderr.write(`Usage: npm run bench -- <${SCENARIOS.join('|')}> [options]\n`);
  process.exit(2);
}
const scenario = (await import(file.href)) as { run(args: string[]): Promise<void> };
await scenario.run(args);
