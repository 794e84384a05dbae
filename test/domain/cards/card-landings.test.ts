import pg from 'pg';
import { expect, it, vi } from 'vitest';
import { CARD_SIMULATION_JOB, landOperations, type CardSimulationJob } from '../../../src/domain/cards/card-simulations.js';
import { BALANCE_UPDATED_EVENT } from '../../../src/domain/accounts/internal-accounts.js';
import type { Logger } from '../../../src/logger.js';
import { entriesOf, findAccount } from '../../../src/store/accounts-repo.js';
import { activeFundedCard, expectLedgerMatches } from '../../helpers/money.js';
import { describeEachEngine } from '../../helpers/test-app.js';

const silent: Logger = { info() {}, warn() {}, error() {} };

/** The set-based landings (landOperations, each job through landJob and the state machine) driven straight through a real store: one unit of work per batch, as the worker's. */
describeEachEngine('card operations landed in one batch', (t) => {
  const authorize = async (cardId: string, amount: number, descriptor = 'COFFEE SHOP') =>
    (await t.services.cardSimulations.authorize(t.caller.platformId, cardId, { amount, currency: { code: 'USD' }, merchant: { descriptor } })).cardTransactionId;
  /** The queued simulation jobs of these transactions, in the order of `ids`. */
  const jobsOf = async (ids: string[]) => {
    const rows = await t.services.store.db.selectFrom('jobs').select('payload').where('kind', '=', CARD_SIMULATION_JOB).where('state', '=', 'queued').execute();
    const jobs = rows.map((r) => JSON.parse(r.payload) as CardSimulationJob).filter((j) => ids.includes(j.cardTransactionId));
    return jobs.sort((a, b) => ids.indexOf(a.cardTransactionId) - ids.indexOf(b.cardTransactionId));
  };
  const land = (jobs: CardSimulationJob[], now: number) => t.services.store.transaction((uow) => landOperations(uow, jobs, silent, { now }));
  const transactions = (ids: string[]) =>
    Promise.all(ids.map((id) => t.services.store.db.selectFrom('card_transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow()));
  const operations = (id: string) => t.services.store.db.selectFrom('card_operations').select(['kind', 'status']).where('card_transaction_id', '=', id).orderBy('seq').execute();
  const balances = async (accountId: string) => {
    const a = (await findAccount(t.services.store.db, t.caller.platformId, accountId))!;
    return { available: Number(a.available_balance), total: Number(a.total_balance) };
  };
  const balanceEventsAt = async (accountId: string, now: number) =>
    (await t.services.store.db.selectFrom('webhook_events').select('body').where('type', '=', BALANCE_UPDATED_EVENT).where('created_at', '=', now).execute())
      .map((e) => JSON.parse(e.body) as { data: { id: string; balance: { amount: number }; totalBalance: { amount: number }; updatedAt: string } })
      .filter((e) => e.data.id === accountId);

  it('decides a batch against the balance the batch leaves: three authorizations that fit twice, the third DECLINED', async () => {
    const card = await activeFundedCard(t, t.caller, 1_000);
    const ids = [await authorize(card.cardId, 400), await authorize(card.cardId, 400), await authorize(card.cardId, 400)];
    const jobs = await jobsOf(ids);
    expect(jobs).toHaveLength(3);
    const now = Date.now();
    await land(jobs, now);

    const landed = await transactions(ids);
    expect(landed.map((x) => [x.status, x.decline_reason, Number(x.authorized_amount)])).toEqual([
      ['AUTHORIZED', null, 400],
      ['AUTHORIZED', null, 400],
      ['DECLINED', 'INSUFFICIENT_FUNDS', 0],
    ]);
    expect(await operations(ids[2]!)).toEqual([{ kind: 'AUTHORIZATION', status: 'REJECTED' }]);
    // Each appears on the list when its authorization lands: placed at the batch's commit.
    for (const x of landed) expect(Number(x.list_position)).toBeGreaterThanOrEqual(now);
    expect(await balances(card.accountId)).toEqual({ available: 200, total: 1_000 });
    expect((await entriesOf(t.services.store.db, card.accountId)).filter((e) => e.kind === 'HOLD').map((e) => [Number(e.amount), e.card_transaction_id])).toEqual([
      [-400, ids[0]],
      [-400, ids[1]],
    ]);
    // One balance event per account per commit (a before-commit hook asked for twice), with the balance the batch leaves.
    expect((await balanceEventsAt(card.accountId, now)).map((e) => e.data.balance.amount)).toEqual([200]);

    // Landed again, the jobs find nothing pending: nothing changes.
    const again = now + 1;
    await land(jobs, again);
    expect((await transactions(ids)).map((x) => x.status)).toEqual(['AUTHORIZED', 'AUTHORIZED', 'DECLINED']);
    expect(await balances(card.accountId)).toEqual({ available: 200, total: 1_000 });
    expect(await balanceEventsAt(card.accountId, again)).toEqual([]);
  });

  it('lands each operation through the state machine in acceptance order: a clearing settles, an expiry releases its hold', async () => {
    const card = await activeFundedCard(t, t.caller, 1_000);
    const [a, b] = [await authorize(card.cardId, 400), await authorize(card.cardId, 300)];
    await land(await jobsOf([a, b]), Date.now());
    await t.services.cardSimulations.simulate(t.caller.platformId, card.cardId, 'clearing', { cardTransactionId: a, amount: 400 });
    await t.services.cardSimulations.simulate(t.caller.platformId, card.cardId, 'authorization_expiry', { cardTransactionId: b });
    await land(await jobsOf([a, b]), Date.now());
    expect((await transactions([a, b])).map((x) => [x.status, Number(x.settled_amount)])).toEqual([
      ['SETTLED', 400],
      ['EXPIRED', 0],
    ]);
    expect(await operations(a)).toEqual([
      { kind: 'AUTHORIZATION', status: 'LANDED' },
      { kind: 'CLEARING', status: 'LANDED' },
    ]);
    expect(await balances(card.accountId)).toEqual({ available: 600, total: 600 });
  });

  it('on PostgreSQL sends one round trip from locking the funding account to COMMIT, and its balance event has the balances the batch leaves', async () => {
    const card = await activeFundedCard(t, t.caller, 1_000);
    const ids = [await authorize(card.cardId, 100), await authorize(card.cardId, 250), await authorize(card.cardId, 700)];
    const jobs = await jobsOf(ids);
    const now = Date.now();
    const queries = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await land(jobs, now);
      if (t.engine === 'postgres') {
        // The wake-up of other processes' workers (pg-wakeups) goes after the commit, on another connection.
        const texts = queries.mock.calls.map(([q]) => String(typeof q === 'string' ? q : (q as { text: string }).text)).filter((q) => !q.startsWith('SELECT pg_notify'));
        const lock = texts.findIndex((q) => /from "?internal_accounts"?[^;]*for no key update/.test(q));
        expect(lock, texts.join('\n---\n')).toBeGreaterThanOrEqual(0);
        // The ledger's postings, the rest of the batch's writes and COMMIT, together.
        expect(texts.slice(lock + 1)).toHaveLength(1);
        expect(texts[lock + 1]).toMatch(/update "internal_accounts" as t[\s\S]*commit/);
      } else {
        expect(queries).not.toHaveBeenCalled();
      }
    } finally {
      queries.mockRestore();
    }
    expect((await transactions(ids)).map((x) => x.status)).toEqual(['AUTHORIZED', 'AUTHORIZED', 'DECLINED']);
    expect(await balances(card.accountId)).toEqual({ available: 650, total: 1_000 });
    await expectLedgerMatches(t.services.store.db, card.accountId, { available: 650, total: 1_000 }, 'after the batch');
    const [event] = await balanceEventsAt(card.accountId, now);
    expect(event?.data).toMatchObject({ balance: { amount: 650 }, totalBalance: { amount: 1_000 }, updatedAt: new Date(now).toISOString() });
  });

  it('a batch that fails lands nothing: its writes, list positions and balance events go with its rollback', async () => {
    const card = await activeFundedCard(t, t.caller, 1_000);
    const id = await authorize(card.cardId, 400);
    const [job] = await jobsOf([id]);
    const now = Date.now();
    const unknown: CardSimulationJob = { platformId: t.caller.platformId, cardTransactionId: 'CardTransaction:unknown', operationId: 'CardOperation:unknown' };
    await expect(land([job!, unknown], now)).rejects.toThrow('does not exist');
    const [x] = await transactions([id]);
    expect([x!.status, Number(x!.list_position)]).toEqual(['PENDING', Number(x!.created_at)]);
    expect(await balances(card.accountId)).toEqual({ available: 1_000, total: 1_000 });
    expect(await balanceEventsAt(card.accountId, now)).toEqual([]);
  });
});
