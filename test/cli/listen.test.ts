import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { produceEvent, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A real `listen` process; its stdout lines as they come. */
function startListen(args: string[]): { child: ChildProcess; lines: string[]; stderr: string[] } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'listen', ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  const lines: string[] = [];
  const stderr: string[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  return { child, lines, stderr };
}

async function stopListen(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describeEachEngine('the CLI\'s listen', (t) => {
  let receiver: WebhookReceiver;
  let baseUrl: string;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => receiver.stop());

  it('forwards each new event, signed with the platform\'s keys, printing the receiver\'s status; --events filters', async () => {
    const caller = await t.newCaller();
    // The platform's keys, for the receiver: the server's own deliveries go nowhere (no endpoint, no worker here).
    receiver.trust((await caller.req('GET', '/config')).json());
    const before = await produceEvent(t, caller, 'CARD_TRANSACTION.AUTHORIZED');
    const listen = startListen(['--forward-to', receiver.url, '--events', 'CARD_TRANSACTION.AUTHORIZED,CARD_TRANSACTION.SETTLED', '--base-url', baseUrl, '--client-id', caller.clientId, '--client-secret', caller.clientSecret, '--interval-ms', '50']);
    try {
      await until('listen to be ready', async () => (listen.lines.some((l) => l.startsWith('Ready.')) ? true : undefined), 30_000);
      const wanted = [await produceEvent(t, caller, 'CARD_TRANSACTION.AUTHORIZED'), await produceEvent(t, caller, 'CARD_TRANSACTION.SETTLED')];
      const skipped = await produceEvent(t, caller, 'CARD_TRANSACTION.EXPIRED');
      const last = await produceEvent(t, caller, 'CARD_TRANSACTION.AUTHORIZED');
      wanted.push(last);
      await until('three forwarded lines', async () => (listen.lines.filter((l) => l.includes('-->')).length >= 3 ? true : undefined), 30_000);

      expect(receiver.deliveries.map((d) => d.id)).toEqual(wanted);
      for (const d of receiver.deliveries) {
        expect(d.verified, d.verifyError).toBe(true);
        expect(d.gridVerified).toBe(true);
        expect(d.verifiedWith).toContain(true);
      }
      const forwarded = listen.lines.filter((l) => l.includes('-->'));
      expect(forwarded).toHaveLength(3);
      forwarded.forEach((line, i) => expect(line).toMatch(new RegExp(`--> CARD_TRANSACTION\\.\\w+ \\[${wanted[i]}\\]  <-- \\[200\\] POST ${receiver.url}$`)));
      for (const id of [before, skipped]) expect(listen.lines.join('\n')).not.toContain(id);
      expect(listen.stderr.join('')).toBe('');
    } finally {
      expect(await stopListen(listen.child)).toBe(0);
    }
  });

  it('refuses to start without a target or credentials', async () => {
    const listen = startListen(['--base-url', baseUrl]);
    const code = await new Promise<number | null>((resolve) => listen.child.once('exit', resolve));
    expect(code).toBe(2);
    expect(listen.stderr.join('')).toContain('Usage: listen --forward-to URL');
  });
});
