import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { engineAvailable } from '../helpers/test-app.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`tokens CLI [${engine}]`, () => {
    let db: TestDatabase;
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...db.env } });
    beforeAll(async () => {
      db = await createTestDatabase(engine);
    });
    afterAll(async () => db.drop());

    it('creates, lists and revokes tokens against the configured database; a second revoke is refused as already revoked', async () => {
      const created = JSON.parse((await cli('tokens', 'create', '--env', 'production', '--name', 'ops', '--json')).stdout);
      expect(created).toMatchObject({ name: 'ops', environment: 'production', clientId: expect.any(String), clientSecret: expect.any(String) });
      expect(created.id).toMatch(/^Token:/);
      const listed = JSON.parse((await cli('tokens', 'list', '--json')).stdout);
      expect(listed.map((t: { id: string }) => t.id)).toContain(created.id);
      expect(JSON.stringify(listed)).not.toContain(created.clientSecret);
      expect((await cli('tokens', 'revoke', created.id)).stdout).toBe(`Revoked ${created.id}\n`);
      const after = JSON.parse((await cli('tokens', 'list', '--json')).stdout);
      expect(after.map((t: { id: string }) => t.id)).not.toContain(created.id);
      await expect(cli('tokens', 'revoke', created.id)).rejects.toMatchObject({ code: 1, stdout: '', stderr: `Token ${created.id} is already revoked: nothing changed\n` });
    });

    it('explains its usage and fails on bad input', async () => {
      await expect(cli('tokens', 'create', '--env', 'staging')).rejects.toMatchObject({ code: 2 });
      await expect(cli('nonsense')).rejects.toMatchObject({ code: 2 });
    });

    it('refuses to revoke an unknown token, saying so, with a non-zero exit', async () => {
      await expect(cli('tokens', 'revoke', 'Token:nope')).rejects.toMatchObject({ code: 1, stdout: '', stderr: 'Unknown token Token:nope: nothing revoked\n' });
    });
  });
}
