import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openServices, type Services } from '../../src/services.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { fetchCall, issueCard, untilActive } from '../helpers/fixtures.js';
import { fundCustomerAt } from '../helpers/money.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { engineAvailable } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const AUTHORIZATIONS = 1_200;
const SERVER_ENV = { LOG_LEVEL: 'error', JOB_POLL_MS: '20', JOB_LEASE_MS: '3500', WEBHOOK_TIMEOUT_MS: '2000' };

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`kill -9 during a clock advance [${engine}]`, () => {
    let db: TestDatabase | undefined;
    let services: Services | undefined;
    let receiver: WebhookReceiver | undefined;
    const servers: ServerProcess[] = [];
    afterAll(async () => {
      for (const s of servers) await s.kill('SIGKILL');
      await receiver?.stop();
      await services?.store.close();
      await db?.drop();
    });

    it('expires each authorization exactly once, with one webhook each, after a restart and another advance; balances equal the ledger', { timeout: 300_000 }, async () => {
      db = await createTestDatabase(engine);
      let server = await startServerProcess({ ...db.env, ...SERVER_ENV });
      servers.push(server);
      services = await openServices(loadConfig({ ...db.env, WORKER_ENABLED: '0', LOG_LEVEL: 'silent' }));
      const store = services.store.db;
      const auth = server.auth!;
      const call = async (base: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
        return JSON.parse(text);
      };
      receiver = await startWebhookReceiver();
      receiver.trust(await call(server.baseUrl, 'PATCH', '/config', { webhookEndpoint: receiver.url }));
      const holder = (await call(server.baseUrl, 'POST', '/customers', { customerType: 'INDIVIDUAL' })).id as string;
      const accountId = await fundCustomerAt(server.baseUrl, auth, holder, AUTHORIZATIONS * 100);
      const card = await issueCard(fetchCall(server.baseUrl, auth), holder);
      await untilActive(fetchCall(server.baseUrl, auth), card.id);
      let sent = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (sent < AUTHORIZATIONS) {
          sent += 1;
          await call(server.baseUrl, 'POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'CRASH TEST' } });
        }
      }));
      const count = async (status: string) =>
        Number((await store.selectFrom('card_transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', status).executeTakeFirstOrThrow()).n);
      await until('every authorization landed', async () => ((await count('AUTHORIZED')) === AUTHORIZATIONS ? true : undefined), 120_000);

      // The advance expires in batches, each its own commit: killed after the first and before the last.
      const advancing = call(server.baseUrl, 'POST', '/sandbox/clock/advance', { seconds: 8 * 86_400 }).then(() => 'answered', () => 'cut');
      await until('the first batch expired', async () => ((await count('EXPIRED')) > 0 ? true : undefined), 60_000, 1);
      await server.kill('SIGKILL');
      expect(await advancing).toBe('cut');
      const expiredAtKill = await count('EXPIRED');
      expect(expiredAtKill).toBeGreaterThan(0);
      expect(expiredAtKill).toBeLessThan(AUTHORIZATIONS);

      server = await startServerProcess({ ...db.env, ...SERVER_ENV });
      servers.push(server);
      await call(server.baseUrl, 'POST', '/sandbox/clock/advance', { seconds: 60 });
      expect(await count('EXPIRED')).toBe(AUTHORIZATIONS);

      const expiries = await store.selectFrom('card_operations').select(['card_transaction_id', 'status']).where('kind', '=', 'AUTHORIZATION_EXPIRY').execute();
      expect(expiries).toHaveLength(AUTHORIZATIONS);
      expect(new Set(expiries.map((o) => o.card_transaction_id)).size).toBe(AUTHORIZATIONS);
      expect(expiries.every((o) => o.status === 'LANDED')).toBe(true);
      const events = await store.selectFrom('webhook_events').select('body').where('type', '=', 'CARD_TRANSACTION.EXPIRED').execute();
      expect(new Set(events.map((e) => JSON.parse(e.body).data.id)).size).toBe(AUTHORIZATIONS);
      expect(events).toHaveLength(AUTHORIZATIONS);
      await receiver.waitFor(() => new Set(receiver!.verifiedUnique().filter((d) => JSON.parse(d.body).type === 'CARD_TRANSACTION.EXPIRED').map((d) => JSON.parse(d.body).data.id)).size === AUTHORIZATIONS, 180_000);

      const account = await store.selectFrom('internal_accounts').select(['available_balance', 'total_balance']).where('id', '=', accountId).executeTakeFirstOrThrow();
      const entries = await store.selectFrom('ledger_entries').select(['kind', 'amount']).where('account_id', '=', accountId).execute();
      expect(Number(account.available_balance)).toBe(entries.reduce((s, e) => s + Number(e.amount), 0));
      expect(Number(account.total_balance)).toBe(entries.filter((e) => e.kind !== 'HOLD' && e.kind !== 'HOLD_RELEASE').reduce((s, e) => s + Number(e.amount), 0));
      expect(Number(account.available_balance)).toBe(AUTHORIZATIONS * 100);
    });
  });
}
