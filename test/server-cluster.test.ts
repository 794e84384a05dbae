import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/engines.js';
import { startServerProcess, type ServerProcess } from './helpers/server-process.js';

const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

describe('HTTP_PROCESSES=2 on SQLite', () => {
  let db: TestDatabase;
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await server?.kill();
    await db.drop();
  });

  it('serves from two processes, replaces one that dies, and stops them all on SIGTERM', async () => {
    server = await startServerProcess({ ...db.env, HTTP_PROCESSES: '2' });
    expect(server.output()).toContain('2 processes');
    const secret = /Client secret:\s+(\S+)/.exec(server.output())![1];
    const clientId = /Client id:\s+(\S+)/.exec(server.output())![1];
    const auth = { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` };
    const ok = async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${server!.baseUrl}/tokens`, { headers: auth, signal: AbortSignal.timeout(2000) }).then(
            (r) => r.status,
            () => 0,
          ),
        ),
      );
      return results.every((s) => s === 200);
    };
    // Connections handed to a process at the moment it is killed are lost; the port must serve again soon after.
    const eventuallyOk = async () => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) if (await ok()) return true;
      return false;
    };
    expect(await ok()).toBe(true);

    const before = childrenOf(server.child.pid!);
    expect(before).toHaveLength(2);
    process.kill(before[0]!, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    let after = childrenOf(server.child.pid!);
    while ((after.length < 2 || after.includes(before[0]!)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = childrenOf(server.child.pid!);
    }
    expect(after).toHaveLength(2);
    expect(after).not.toContain(before[0]);
    expect(await eventuallyOk()).toBe(true);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    for (const pid of after) expect(() => process.kill(pid, 0)).toThrow();
  });
});
