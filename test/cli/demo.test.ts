import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run demo', () => {
  it('walks the sandbox end to end: every webhook arrives verified both ways and every balance is what the ledger says', async () => {
    const env = { ...process.env };
    delete env.BASE_URL;
    delete env.DATABASE_URL;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/demo.ts'], { cwd: ROOT, env, timeout: 60_000 });
    expect(stdout).toContain('Every expected webhook arrived, verified both ways, and every balance is what the ledger says.');
    expect(stdout).toMatch(/✓ balance after funding 10000: available 10000 \/ total 10000/);
    expect(stdout).toMatch(/✓ balance after authorization #1 \(1250 held\): available 8750 \/ total 10000/);
    expect(stdout).toMatch(/✓ balance after expiry #1 \(hold released\): available 10000 \/ total 10000/);
    expect(stdout).toMatch(/✓ balance after return_reversal #2 \(debited again\): available 5800 \/ total 5800/);
    expect(stdout).toMatch(/✓ authorization #3 +itt_[0-9a-f]{32} +expected CARD_TRANSACTION\.DECLINED +got CARD_TRANSACTION\.DECLINED verified both ways/);
    expect(stdout).toContain('status DECLINED, declineReason INSUFFICIENT_FUNDS');
    expect(stdout).toMatch(/✓ balance after financial authorization \(debited at once, nothing held\): available 4800 \/ total 4800/);
    expect(stdout).toMatch(/✓ balance after credit authorization cleared \(credited\): available 5500 \/ total 5500/);
    expect(stdout).toMatch(/✓ balance after financial credit \(credited at once\): available 5800 \/ total 5800/);
    expect(stdout).toMatch(/✓ balance_inquiry +itt_[0-9a-f]{32} +expected CARD_TRANSACTION\.SETTLED +got CARD_TRANSACTION\.SETTLED verified both ways/);
    expect(stdout).toMatch(/✓ balance after transfer-in 2000 \(credited\): available 7800 \/ total 7800/);
    expect(stdout).toMatch(/✓ balance after transfer-out 1500 \(debited\): available 6300 \/ total 6300/);
    expect(stdout).toMatch(/✓ transfer-out 1500 +Transaction:\S+ +expected OUTGOING_PAYMENT\.COMPLETED +got it, verified both ways/);
    expect(stdout).toMatch(/✓ transfer-in 2000 +Transaction:\S+ +expected INCOMING_PAYMENT\.COMPLETED +got it, verified both ways/);
    expect(stdout).toMatch(/✓ balance after quote executed \(debited\): available 5300 \/ total 5300/);
    expect(stdout).toMatch(/✓ quote USD -> EUR +Transaction:\S+ +expected OUTGOING_PAYMENT\.COMPLETED +got it, verified both ways/);
    expect(stdout).toMatch(/✓ OUTGOING_PAYMENT\.COMPLETED arrived verified both ways: 1000 USD cents sent, \d+ EUR cents received/);
    expect(stdout).toMatch(/✓ 14 balance checks, 0 differing from the ledger's arithmetic/);
    expect(stdout).toMatch(/✓ test webhook +expected TEST +got TEST verified both ways/);
    expect(stdout).toMatch(/✓ verification +expected CUSTOMER\.KYB_APPROVED +got it, verified both ways/);
    expect(stdout).toMatch(/⇐ webhook TEST webhook-id=Webhook:\S+ X-Grid-Signature ✓ webhook-signature ✓/);
    expect(stdout).toMatch(/✓ authorization_expiry #1 +itt_[0-9a-f]{32} +expected CARD_TRANSACTION\.EXPIRED +got CARD_TRANSACTION\.EXPIRED verified both ways/);
    expect(stdout).toMatch(/✓ return_reversal #2 +itt_[0-9a-f]{32} +expected CARD_TRANSACTION\.SETTLED +got CARD_TRANSACTION\.SETTLED verified both ways/);
    expect(stdout).toContain('0 failed verification');
    expect(stdout).toMatch(/✓ the page answered 200: PAN •{12}4042 \(Luhn valid\)/);
    expect(stdout).toMatch(/✓ a second use answered 404 REFERENCE_NOT_FOUND/);
  });
});
