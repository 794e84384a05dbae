import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES, type TestDatabase } from './helpers/engines.js';
import { startServerProcess, type ServerProcess } from './helpers/server-process.js';
import { engineAvailable } from './helpers/test-app.js';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`server process [${engine}]`, () => {
    let db: TestDatabase;
    let server: ServerProcess | undefined;
    beforeAll(async () => {
      db = await createTestDatabase(engine);
    });
    afterAll(async () => {
      await server?.kill();
      await db.drop();
    });

    it('prints working credentials on first start only, keeps cursors valid across a restart, and drains on SIGTERM', async () => {
      server = await startServerProcess(db.env);
      const secret = /Client secret:\s+(\S+)/.exec(server.output())?.[1];
      const clientId = /Client id:\s+(\S+)/.exec(server.output())?.[1];
      expect(secret && clientId).toBeTruthy();
      expect(server.output()).toContain(`curl -u '${clientId}:${secret}'`);
      const auth = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
      const h = { authorization: auth, 'content-type': 'application/json' };

      expect((await fetch(`${server.baseUrl}/no-such-path`)).status).toBe(401);
      const notFound = await fetch(`${server.baseUrl}/no-such-path`, { headers: h });
      expect(notFound.status).toBe(404);
      expect(await notFound.json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });

      await fetch(`${server.baseUrl}/tokens`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'second', permissions: ['VIEW'] }) });
      const page = await (await fetch(`${server.baseUrl}/tokens?limit=1`, { headers: h })).json();
      expect(page.hasMore).toBe(true);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);

      server = await startServerProcess(db.env);
      expect(server.output()).not.toContain('Client secret');
      const next = await fetch(`${server.baseUrl}/tokens?limit=1&cursor=${page.nextCursor}`, { headers: h });
      expect(next.status).toBe(200);
      expect((await next.json()).data[0].name).toBe('second');
    });

    it('refuses to start with a bad setting, naming it', async () => {
      await expect(startServerProcess({ ...db.env, SERVICE_ENV: 'staging' }, 15_000)).rejects.toThrow(/SERVICE_ENV/);
    });
  });
}
