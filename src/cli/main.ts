import { ConfigError } from '../config.js';
import { listenCommand } from './listen.js';
import { seedCommand } from './seed.js';
import { tokensCommand } from './tokens.js';

export interface CliCommand {
  summary: string;
  run(args: string[]): Promise<number>;
}

/** Subcommands; each parses its own flags. */
const commands: Record<string, CliCommand> = {
  tokens: tokensCommand,
  seed: seedCommand,
  listen: listenCommand,
};

function usage(): string {
  return [
    'Usage: npm run --silent cli -- <command> [options]',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`),
    '',
    'The CLI uses the same DATA_DIR / DATABASE_URL as the server.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n\n${usage()}\n`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

