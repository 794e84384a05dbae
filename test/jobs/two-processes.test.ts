import { expect, it, onTestFinished } from 'vitest';
import { CARD_SIMULATION_JOB } from '../../src/domain/cards/card-simulations.js';
import { activeCardOver, fetchCall } from '../helpers/fixtures.js';
import { HoldingReceiver } from '../helpers/holding-receiver.js';
import { describeWithProcesses } from '../helpers/process-harness.js';
import { expectLandedExactlyOnce, pendingOperations, startTraffic } from '../helpers/simulation-traffic.js';
import { until } from '../helpers/until.js';

const SERVER_ENV = { JOB_POLL_MS: '20', LOG_LEVEL: 'error' };

describeWithProcesses('two server processes with workers on one PostgreSQL database', { env: SERVER_ENV, engines: ['postgres'] }, (h) => {
  it('never apply a job twice: each operation lands once, with one event, delivered once, while both claim jobs', { timeout: 180_000 }, async () => {
    const { store } = h;
    const a = await h.startServer();
    const b = await h.startServer();
    const receiver = h.receiver(await new HoldingReceiver().start());
    receiver.release();
    await h.connect(a, receiver);
    const { customerId: holder } = await h.fundedCustomer(a);
    const cardIds: string[] = [];
    for (let i = 0; i < 8; i++) cardIds.push((await activeCardOver(fetchCall(a.baseUrl, h.auth), holder)).id);

    // Which processes hold simulation jobs, sampled while the burst is accepted and lands.
    const claimants = new Map<string, number>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await store.selectFrom('jobs').select('lease_owner').distinct().where('kind', '=', CARD_SIMULATION_JOB).where('lease_owner', 'is not', null).execute();
        for (const { lease_owner } of rows) {
          const pid = Number(lease_owner!.split(':')[1]);
          claimants.set(String(pid), (claimants.get(String(pid)) ?? 0) + 1);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    // Stopped before the harness closes the store, also when the test fails before it is stopped below.
    onTestFinished(async () => {
      sampling = false;
      await sampler;
    });
    const traffic = startTraffic({ baseUrls: [a.baseUrl, b.baseUrl], auth: h.auth, cardIds, clients: 16 });
    await until('a burst of simulations', async () => (traffic.accepted() >= 1000 ? true : undefined), 60_000);
    await traffic.stop();
    await until('every operation landed', async () => ((await pendingOperations(store)) === 0 ? true : undefined), 90_000);
    sampling = false;
    await sampler;
    // Contention: both processes were seen holding simulation jobs.
    expect([...claimants.keys()].sort()).toEqual([String(a.child.pid), String(b.child.pid)].sort());

    const eventIds = await expectLandedExactlyOnce(store, traffic.chains);
    expect(eventIds.length).toBe(traffic.accepted());
    await h.untilEveryEventDelivered(60_000);
    // Never claimed twice: a second claim of a job (simulation or delivery) is a second run of it.
    const jobs = await store.selectFrom('jobs').select(['id', 'kind', 'attempts', 'state']).execute();
    expect(jobs.filter((j) => j.attempts !== 1 || j.state !== 'done')).toEqual([]);
    // Each event reached the receiver once, verified: the card transaction events and the account balance events.
    const balanceEvents = await store.selectFrom('webhook_events').select(['id', 'body']).where('type', '=', 'INTERNAL_ACCOUNT.BALANCE_UPDATED').orderBy('list_position').orderBy('id').execute(); // commit order
    const balanceEventIds = balanceEvents.map((e) => e.id);
    // One per account per commit (a group commit of many operations on an account sends one), so
    // between one per account and one per operation; each account's last one shows its final balances.
    expect(balanceEventIds.length).toBeGreaterThan(0);
    expect(balanceEventIds.length).toBeLessThanOrEqual(traffic.accepted());
    const lastEvent = new Map<string, { balance: { amount: number }; totalBalance: { amount: number } }>();
    for (const e of balanceEvents) {
      const account = (JSON.parse(e.body) as { data: { id: string; balance: { amount: number }; totalBalance: { amount: number } } }).data;
      lastEvent.set(account.id, account);
    }
    const accounts = await store.selectFrom('internal_accounts').select(['id', 'available_balance', 'total_balance']).where('id', 'in', [...lastEvent.keys()]).execute();
    expect(accounts.map((a) => ({ id: a.id, balance: Number(a.available_balance), total: Number(a.total_balance) }))).toEqual(
      accounts.map((a) => ({ id: a.id, balance: lastEvent.get(a.id)!.balance.amount, total: lastEvent.get(a.id)!.totalBalance.amount })),
    );
    // And the setup's: the cardholder's approval and each card's activation, one each.
    const setupEvents = await store.selectFrom('webhook_events').select(['id', 'type']).where('type', 'in', ['CUSTOMER.KYC_APPROVED', 'CARD.STATE_CHANGE']).execute();
    expect(setupEvents.map((e) => e.type).sort()).toEqual(['CUSTOMER.KYC_APPROVED', ...Array(cardIds.length).fill('CARD.STATE_CHANGE')].sort());
    expect(receiver.verified.map((d) => d.id).sort()).toEqual([...eventIds, ...balanceEventIds, ...setupEvents.map((e) => e.id)].sort());
    expect(receiver.unverified).toBe(0);
    expect(await a.stop('SIGTERM')).toBe(0);
    expect(await b.stop('SIGTERM')).toBe(0);
  });
});
