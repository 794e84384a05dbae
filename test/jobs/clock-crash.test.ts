import { expect, it } from 'vitest';
import { EXPIRY_BATCH } from '../../src/domain/cards/authorization-expiry.js';
import { fetchCall, issueCard, untilActive } from '../helpers/fixtures.js';
import { describeWithProcesses } from '../helpers/process-harness.js';
import { until } from '../helpers/until.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * An advance expires in batches of EXPIRY_BATCH, each its own commit: two full batches and part of a
 * third, so that the kill, once the first has committed, finds a whole batch (and more) still to come.
 */
const AUTHORIZATIONS = 2 * EXPIRY_BATCH + 100;
const SERVER_ENV = {
  LOG_LEVEL: 'error',
  JOB_POLL_MS: '20',
  JOB_LEASE_MS: '3500',
  WEBHOOK_TIMEOUT_MS: '2000',
  // A delivery that times out on a busy machine is tried again at once, not after the default 5 s, 30 s, 2 min.
  WEBHOOK_RETRY_SCHEDULE: Array(40).fill('0.2').join(','),
};

describeWithProcesses('kill -9 during a clock advance', { env: SERVER_ENV }, (h) => {
  it('expires each authorization exactly once, with one webhook each, after a restart and another advance; balances equal the ledger', { timeout: 300_000 }, async () => {
    const { store } = h;
    let server = await h.startServer();
    // The authorizations whose CARD_TRANSACTION.EXPIRED webhook arrived verified (and answered 2xx), counted as they arrive:
    // the receiver checks a waiter before answering each delivery, and one that parsed every delivery so far slowed
    // the answers until deliveries timed out and waited on retries.
    const expiredDelivered = new Set<string>();
    const receiver = h.receiver(
      await startWebhookReceiver({
        onDelivery: (d) => {
          if (d.verified && d.answeredStatus < 300 && d.payload?.type === 'CARD_TRANSACTION.EXPIRED') expiredDelivered.add((d.payload.data as { id: string }).id);
        },
      }),
    );
    await h.connect(server, receiver);
    const { customerId: holder, accountId } = await h.fundedCustomer(server, AUTHORIZATIONS * 100);
    const card = await issueCard(fetchCall(server.baseUrl, h.auth), holder);
    await untilActive(fetchCall(server.baseUrl, h.auth), card.id);
    let sent = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (sent < AUTHORIZATIONS) {
        sent += 1;
        await h.call(server, 'POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'CRASH TEST' } });
      }
    }));
    const count = async (status: string) =>
      Number((await store.selectFrom('card_transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', status).executeTakeFirstOrThrow()).n);
    await until('every authorization landed', async () => ((await count('AUTHORIZED')) === AUTHORIZATIONS ? true : undefined), 120_000);

    // The advance expires in batches, each its own commit: killed after the first and before the last.
    const advancing = h.call(server, 'POST', '/sandbox/clock/advance', { seconds: 8 * 86_400 }).then(() => 'answered', () => 'cut');
    await until('the first batch expired', async () => ((await count('EXPIRED')) > 0 ? true : undefined), 60_000, 1);
    await server.kill('SIGKILL');
    expect(await advancing).toBe('cut');
    const expiredAtKill = await count('EXPIRED');
    expect(expiredAtKill).toBeGreaterThan(0);
    expect(expiredAtKill).toBeLessThan(AUTHORIZATIONS);

    server = await h.startServer();
    await h.call(server, 'POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(await count('EXPIRED')).toBe(AUTHORIZATIONS);

    const expiries = await store.selectFrom('card_operations').select(['card_transaction_id', 'status']).where('kind', '=', 'AUTHORIZATION_EXPIRY').execute();
    expect(expiries).toHaveLength(AUTHORIZATIONS);
    expect(new Set(expiries.map((o) => o.card_transaction_id)).size).toBe(AUTHORIZATIONS);
    expect(expiries.every((o) => o.status === 'LANDED')).toBe(true);
    const events = await store.selectFrom('webhook_events').select('body').where('type', '=', 'CARD_TRANSACTION.EXPIRED').execute();
    expect(new Set(events.map((e) => JSON.parse(e.body).data.id)).size).toBe(AUTHORIZATIONS);
    expect(events).toHaveLength(AUTHORIZATIONS);
    await receiver.waitFor(() => expiredDelivered.size === AUTHORIZATIONS, 180_000);

    const account = await store.selectFrom('internal_accounts').select(['available_balance', 'total_balance']).where('id', '=', accountId).executeTakeFirstOrThrow();
    const entries = await store.selectFrom('ledger_entries').select(['kind', 'amount']).where('account_id', '=', accountId).execute();
    expect(Number(account.available_balance)).toBe(entries.reduce((s, e) => s + Number(e.amount), 0));
    expect(Number(account.total_balance)).toBe(entries.filter((e) => e.kind !== 'HOLD' && e.kind !== 'HOLD_RELEASE').reduce((s, e) => s + Number(e.amount), 0));
    expect(Number(account.available_balance)).toBe(AUTHORIZATIONS * 100);
  });
});
