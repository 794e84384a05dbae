import { afterAll, describe, expect, it } from 'vitest';
import { businessCustomer } from '../helpers/owners.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { engineAvailable } from '../helpers/test-app.js';

const REPLAYED = 'idempotent-replayed';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`Idempotency-Key across two server processes on one database [${engine}]`, () => {
    let db: TestDatabase | undefined;
    const servers: ServerProcess[] = [];
    afterAll(async () => {
      for (const s of servers) await s.kill('SIGKILL');
      await db?.drop();
    });

    it('runs a request once whichever process each copy reaches, at the same time or later', { timeout: 90_000 }, async () => {
      db = await createTestDatabase(engine);
      const env = { ...db.env, WORKER_ENABLED: '0' };
      const a = await startServerProcess(env);
      servers.push(a);
      const b = await startServerProcess(env);
      servers.push(b);
      const auth = a.auth!;
      const post = (server: ServerProcess, key: string, body: unknown) =>
        fetch(`${server.baseUrl}/customers`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });
      // By legal name: the bodies carry no platformCustomerId, whose uniqueness would turn a second execution into a 409.
      const count = async (legalName: string) =>
        ((await (await fetch(`${a.baseUrl}/customers?limit=100`, { headers: { authorization: auth } })).json()) as { data: { businessInfo?: { legalName?: string } }[] }).data.filter(
          (c) => c.businessInfo?.legalName === legalName,
        ).length;

      const outcomes = new Map<string, number>();
      for (let i = 0; i < 20; i++) {
        const key = `two-processes-${i}`;
        const { platformCustomerId: _, ...input } = businessCustomer(i);
        // One copy to each process at once; then a late retry to the other one.
        const answers = await Promise.all([post(a, key, input), post(b, key, input)]);
        const late = await post(i % 2 ? a : b, key, input);
        const bodies = await Promise.all(answers.map((r) => r.text()));
        const executed = answers.filter((r) => r.status === 201 && r.headers.get(REPLAYED) === null);
        expect(executed, `key ${key}: ${answers.map((r) => r.status)}`).toHaveLength(1);
        const first = bodies[answers.indexOf(executed[0]!)]!;
        answers.forEach((r, n) => {
          const outcome = r === executed[0] ? 'executed' : r.status === 409 ? 'conflict' : 'replayed';
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          if (outcome === 'conflict') expect(JSON.parse(bodies[n]!)).toMatchObject({ status: 409, code: 'CONFLICT' });
          if (outcome === 'replayed') expect({ status: r.status, replayed: r.headers.get(REPLAYED), body: bodies[n] }).toEqual({ status: 201, replayed: 'true', body: first });
        });
        expect({ status: late.status, replayed: late.headers.get(REPLAYED), body: await late.text() }).toEqual({ status: 201, replayed: 'true', body: first });
        expect(await count(input.businessInfo.legalName)).toBe(1);
      }
      expect(outcomes.get('executed')).toBe(20);
    });
  });
}
