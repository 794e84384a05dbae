import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { basicAuth, BASE, describeEachEngine } from '../helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describeEachEngine('cli seed', (t) => {
  it('creates a platform, a token, business customers and counted owners that the API lists', async () => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...t.db.env, LOG_LEVEL: 'silent' };
    if (!t.db.databaseUrl) delete env.DATABASE_URL;
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'seed', '--customers', '3', '--owners-per-customer', '45', '--json'], { cwd: ROOT, env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { clientId: string; clientSecret: string; owners: number; sampleCustomerIds: string[] };
    expect(out.owners).toBe(135);
    expect(out.sampleCustomerIds).toHaveLength(3);
    const auth = basicAuth(out.clientId, out.clientSecret);
    for (const customerId of out.sampleCustomerIds) {
      const seen: string[] = [];
      let cursor = '';
      do {
        const res = await t.app.inject({ method: 'GET', url: `${BASE}/beneficial-owners?customerId=${customerId}&limit=20${cursor}`, headers: { authorization: auth } });
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json<{ data: { id: string; customerId: string }[]; totalCount: number; nextCursor?: string }>();
        expect(page.totalCount).toBe(45);
        expect(page.data.every((o) => o.customerId === customerId)).toBe(true);
        seen.push(...page.data.map((o) => o.id));
        cursor = page.nextCursor ? `&cursor=${page.nextCursor}` : '';
      } while (cursor);
      expect(new Set(seen).size).toBe(45);
    }
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'seed', '--customers', 'many'], { cwd: ROOT, env, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--customers must be an integer/);
  });
});
