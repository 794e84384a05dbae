import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run demo', () => {
  it('walks the sandbox end to end and sees every webhook arrive verified both ways', async () => {
    const env = { ...process.env };
    delete env.BASE_URL;
    delete env.DATABASE_URL;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/demo.ts'], { cwd: ROOT, env, timeout: 60_000 });
    expect(stdout).toContain('Every expected webhook arrived, verified both ways.');
    expect(stdout).toMatch(/✓ test webhook +expected TEST +got TEST verified both ways/);
    expect(stdout).toMatch(/⇐ webhook TEST webhook-id=Webhook:\S+ X-Grid-Signature ✓ webhook-signature ✓/);
    expect(stdout).toMatch(/✓ authorization_expiry #1 +itt_[0-9a-f]{32} +expected CARD_TRANSACTION\.EXPIRED +got CARD_TRANSACTION\.EXPIRED verified both ways/);
    expect(stdout).toMatch(/✓ return_reversal #2 +itt_[0-9a-f]{32} +expected CARD_TRANSACTION\.SETTLED +got CARD_TRANSACTION\.SETTLED verified both ways/);
    expect(stdout).toContain('0 failed verification');
  });
});
