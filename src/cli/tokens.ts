import { parseArgs } from 'node:util';
import { createPlatform, environmentScope } from '../domain/platform/platforms.js';
import { PERMISSIONS, renderToken, type Environment } from '../domain/platform/tokens.js';
import { NotFoundError } from '../domain/shared/errors.js';
import { firstSandboxPlatform, listAllTokens } from '../store/tokens-repo.js';
import type { CliCommand } from './main.js';
import { withServices } from './open.js';

const USAGE = `Usage:
  tokens create [--env sandbox|production] [--name NAME] [--platform PLATFORM_ID] [--json]
  tokens list [--json]
  tokens revoke TOKEN_ID`;

export const tokensCommand: CliCommand = {
  summary: 'create, list or revoke API tokens',
  async run(args) {
    const [sub, ...rest] = args;
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        env: { type: 'string', default: 'sandbox' },
        name: { type: 'string' },
        platform: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (sub === 'create') {
      if (values.env !== 'sandbox' && values.env !== 'production') {
        process.stderr.write(`--env must be sandbox or production, not ${JSON.stringify(values.env)}\n`);
        return 2;
      }
      const environment = values.env as Environment;
      return withServices(async ({ store, tokens }) => {
        const named = values.platform ?? (await firstSandboxPlatform(store.db)) ?? (await createPlatform(store, 'Sandbox platform'));
        // The token lives in the scope of its environment: a production token never reaches sandbox data.
        const platformId = await environmentScope(store, named, environment);
        if (platformId === undefined) {
          process.stderr.write(`No platform ${named}\n`);
          return 1;
        }
        const token = await tokens.create(platformId, {
          name: values.name ?? `CLI ${environment} token`,
          permissions: [...PERMISSIONS],
          environment,
        });
        if (values.json) process.stdout.write(`${JSON.stringify({ ...token, platformId })}\n`);
        else
          process.stdout.write(
            `Created ${environment} token for ${platformId}${platformId === named ? '' : ` (the ${environment} scope of ${named})`}\n  Token id:      ${token.id}\n  Client id:     ${token.clientId}\n  Client secret: ${token.clientSecret}  (shown once)\n`,
          );
        return 0;
      });
    }
    if (sub === 'list') {
      return withServices(async ({ store }) => {
        const rows = await listAllTokens(store.db);
        if (values.json) process.stdout.write(`${JSON.stringify(rows.map((r) => ({ ...renderToken(r), platformId: r.platform_id })))}\n`);
        else for (const r of rows) process.stdout.write(`${r.id}  ${r.environment.padEnd(10)} ${r.platform_id}  ${r.name}\n`);
        return 0;
      });
    }
    if (sub === 'revoke' && positionals.length === 1) {
      const id = positionals[0]!;
      return withServices(async ({ store, tokens }) => {
        const row = await store.db.selectFrom('api_tokens').select(['platform_id', 'revoked_at']).where('id', '=', id).executeTakeFirst();
        if (!row) {
          process.stderr.write(`Unknown token ${id}: nothing revoked\n`);
          return 1;
        }
        const alreadyRevoked = () => {
          process.stderr.write(`Token ${id} is already revoked: nothing changed\n`);
          return 1;
        };
        if (row.revoked_at !== null) return alreadyRevoked();
        try {
          await tokens.revoke(row.platform_id, id);
        } catch (err) {
          // Another process revoked it since the read above.
          if (err instanceof NotFoundError) return alreadyRevoked();
          throw err;
        }
        process.stdout.write(`Revoked ${id}\n`);
        return 0;
      });
    }
    process.stderr.write(`${USAGE}\n`);
    return 2;
  },
};
