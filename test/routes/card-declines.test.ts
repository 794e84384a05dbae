import { beforeAll, describe, expect, it } from 'vitest';
import { landOperations, type CardSimulationJob } from '../../src/domain/cards/card-simulations.js';
import { newId } from '../../src/domain/shared/ids.js';
import { entriesOf, insertAccountIfAbsent } from '../../src/store/accounts-repo.js';
import { drainCardJobs, provisionCards } from '../helpers/card-jobs.js';
import { activeFundedCard, type FundedCard } from '../helpers/money.js';
import { describeEachEngine } from '../helpers/test-app.js';

const DELAYED_PULL_MS = 1_200;

describeEachEngine(
  'authorization decisioning and the transaction summaries',
  (t) => {
    const drain = () => drainCardJobs(t.services, t.app.log);
    const sim = (card: string, kind: string, body: unknown) => t.caller.req('POST', `/sandbox/cards/${card}/simulate/${kind}`, body);
    const txn = async (id: string) => (await t.caller.req('GET', `/transactions/${id}`)).json();
    const balances = async (accountId: string, customerId: string) => {
      const page = (await t.caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)).json();
      const a = page.data.find((x: { id: string }) => x.id === accountId);
      return { available: a.balance.amount as number, total: a.totalBalance.amount as number };
    };
    async function authorize(card: string, amount: number, descriptor: string): Promise<{ id: string; token: string }> {
      const res = await sim(card, 'authorization', { amount, currency: { code: 'USD' }, merchant: { descriptor } });
      expect(res.statusCode, res.body).toBe(202);
      return { id: res.json().cardTransactionId, token: res.json().issuerTransactionToken };
    }
    async function events(id: string) {
      const rows = await t.services.store.db.selectFrom('webhook_events').select(['type', 'body', 'created_at']).orderBy('created_at').orderBy('id').execute();
      return rows.map((r) => ({ type: r.type, at: Number(r.created_at), body: JSON.parse(r.body) })).filter((e) => e.body.data?.id === id);
    }
    async function balanceEvents(accountId: string): Promise<number> {
      const rows = await t.services.store.db.selectFrom('webhook_events').select(['body']).where('type', '=', 'INTERNAL_ACCOUNT.BALANCE_UPDATED').execute();
      return rows.filter((r) => JSON.parse(r.body).data.id === accountId).length;
    }
    const setCardState = (cardId: string, state: string) => t.services.store.db.updateTable('cards').set({ state }).where('id', '=', cardId).execute();

    let card: FundedCard;
    beforeAll(async () => {
      card = await activeFundedCard(t, t.caller, 10_000);
    });

    it('keeps a merchant as sent, quotes, backslashes, escapes and non-ASCII included', async () => {
      const descriptor = 'CAFÉ "L\\Œuf" \\u0000 {x} 😀';
      const a = await authorize(card.cardId, 100, descriptor);
      await drain();
      expect((await txn(a.id)).merchant).toEqual({ descriptor });
    });

    it('authorizations landed in one batch each see the balance the ones before them left: the third of three that fit twice is declined', async () => {
      const tight = await activeFundedCard(t, t.caller, 1_000);
      const accepted = [await authorize(tight.cardId, 400, 'ONE'), await authorize(tight.cardId, 400, 'TWO'), await authorize(tight.cardId, 400, 'THREE')];
      const jobs = (await t.services.store.db.selectFrom('jobs').select('payload').where('kind', '=', 'card.simulation').where('state', '=', 'queued').execute())
        .map((j) => JSON.parse(j.payload) as CardSimulationJob)
        .filter((j) => accepted.some((a) => a.id === j.cardTransactionId))
        .sort((x, y) => accepted.findIndex((a) => a.id === x.cardTransactionId) - accepted.findIndex((a) => a.id === y.cardTransactionId));
      expect(jobs).toHaveLength(3);
      await t.services.store.transaction((uow) => landOperations(uow, jobs, t.app.log));
      const landed = await Promise.all(accepted.map((a) => txn(a.id)));
      expect(landed.map((x) => [x.status, x.declineReason ?? null])).toEqual([
        ['AUTHORIZED', null],
        ['AUTHORIZED', null],
        ['DECLINED', 'INSUFFICIENT_FUNDS'],
      ]);
      expect(await balances(tight.accountId, tight.cardholderId)).toEqual({ available: 200, total: 1_000 });
      // One balance event for the batch, with the account as the batch left it.
      const updates = (await t.services.store.db.selectFrom('webhook_events').select('body').where('type', '=', 'INTERNAL_ACCOUNT.BALANCE_UPDATED').orderBy('id').execute())
        .map((r) => JSON.parse(r.body).data)
        .filter((a) => a.id === tight.accountId);
      expect(updates.at(-1).balance.amount).toBe(200);
      for (const a of accepted) expect((await events(a.id)).map((e) => e.type)).toHaveLength(1);
      await drain();
    });

    describe('declines', () => {
      it('suffix 002: DECLINED INSUFFICIENT_FUNDS although the funds are there; nothing held, no balance event, one webhook', async () => {
        const start = await balances(card.accountId, card.cardholderId);
        const balanceEventsBefore = await balanceEvents(card.accountId);
        const a = await authorize(card.cardId, 500, 'AMAZON RETAIL US-002');
        await drain();
        const body = await txn(a.id);
        expect(body).toMatchObject({
          status: 'DECLINED',
          declineReason: 'INSUFFICIENT_FUNDS',
          accountId: card.accountId,
          authorizedAmount: { amount: 0 },
          pullSummary: { count: 1, totalAmount: 0, pendingCount: 0 },
          settlementSummary: { count: 0, totalAmount: 0 },
          refundSummary: { count: 0, totalAmount: 0 },
        });
        expect(body.operations).toEqual([
          expect.objectContaining({ kind: 'AUTHORIZATION', amount: 500, status: 'REJECTED', issuerTransactionToken: a.token, reason: expect.stringMatching(/^INSUFFICIENT_FUNDS: .*002/) }),
        ]);
        expect(await balances(card.accountId, card.cardholderId)).toEqual(start);
        expect((await entriesOf(t.services.store.db, card.accountId)).filter((e) => e.card_transaction_id === a.id)).toEqual([]);
        expect(await balanceEvents(card.accountId)).toBe(balanceEventsBefore);
        const evs = await events(a.id);
        expect(evs.map((e) => e.type)).toEqual(['CARD_TRANSACTION.DECLINED']);
        expect(evs[0]!.body.operation).toEqual({ kind: 'AUTHORIZATION', issuerTransactionToken: a.token, amount: 500 });
        expect(evs[0]!.body.data).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
        const listed = (await t.caller.req('GET', `/transactions?cardId=${encodeURIComponent(card.cardId)}&status=DECLINED`)).json();
        expect(listed.data.map((x: { id: string }) => x.id)).toContain(a.id);
      });

      it('suffix 003: DECLINED CARD_PAUSED, no pull tried', async () => {
        const a = await authorize(card.cardId, 500, 'BLUE BOTTLE 003');
        await drain();
        expect(await txn(a.id)).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED', pullSummary: { count: 0, totalAmount: 0, pendingCount: 0 } });
      });

      it('more than any funding source has available: INSUFFICIENT_FUNDS; exactly the available amount: approved', async () => {
        const start = await balances(card.accountId, card.cardholderId);
        const over = await authorize(card.cardId, start.available + 1, 'BIG TICKET');
        const exact = await authorize(card.cardId, start.available, 'ALL IN');
        await drain();
        expect(await txn(over.id)).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
        expect(await txn(exact.id)).toMatchObject({ status: 'AUTHORIZED', pullSummary: { count: 1, totalAmount: start.available, pendingCount: 0 } });
        expect(await balances(card.accountId, card.cardholderId)).toEqual({ available: 0, total: start.total });
        expect((await sim(card.cardId, 'authorization_expiry', { cardTransactionId: exact.id })).statusCode).toBe(202);
        await drain();
        expect(await balances(card.accountId, card.cardholderId)).toEqual(start);
      });

      it('a card that is not ACTIVE is accepted (202) and declined CARD_PAUSED when it lands, also when it froze after the 202', async () => {
        const frozen = await activeFundedCard(t, t.caller, 5_000);
        await setCardState(frozen.cardId, 'FROZEN');
        const atRequest = await authorize(frozen.cardId, 100, 'COFFEE');
        await setCardState(frozen.cardId, 'ACTIVE');
        const beforeLanding = await authorize(frozen.cardId, 100, 'COFFEE');
        await setCardState(frozen.cardId, 'CLOSED');
        await drain();
        for (const id of [atRequest.id, beforeLanding.id]) {
          const body = await txn(id);
          expect(body).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED', accountId: frozen.accountId });
          expect(body.operations[0].reason).toMatch(/^CARD_PAUSED: the card is (FROZEN|CLOSED)/);
        }
        expect(await balances(frozen.accountId, frozen.cardholderId)).toEqual({ available: 5_000, total: 5_000 });
      });

      it('above maxSpendPerTransaction: DECLINED SPEND_LIMIT_EXCEEDED, holding nothing, before the funds are looked at; exactly the limit is approved', async () => {
        const limited = await activeFundedCard(t, t.caller, 10_000);
        const patched = await t.caller.req('PATCH', `/cards/${limited.cardId}`, { maxSpendPerTransaction: 2_500 });
        expect(patched.statusCode, patched.body).toBe(200);
        const entriesBefore = (await entriesOf(t.services.store.db, limited.accountId)).length;
        const balanceEventsBefore = await balanceEvents(limited.accountId);
        const over = await authorize(limited.cardId, 2_501, 'ELECTRONICS');
        // Above the limit and above the funds: the limit is what declines it.
        const wayOver = await authorize(limited.cardId, 20_000, 'ELECTRONICS');
        await drain();
        for (const [a, amount] of [[over, 2_501], [wayOver, 20_000]] as const) {
          const body = await txn(a.id);
          expect(body).toMatchObject({
            status: 'DECLINED',
            declineReason: 'SPEND_LIMIT_EXCEEDED',
            accountId: limited.accountId,
            authorizedAmount: { amount: 0 },
            pullSummary: { count: 0, totalAmount: 0, pendingCount: 0 },
          });
          expect(body.operations).toEqual([expect.objectContaining({ kind: 'AUTHORIZATION', amount, status: 'REJECTED', reason: expect.stringMatching(/^SPEND_LIMIT_EXCEEDED: .*2500/) })]);
          const evs = await events(a.id);
          expect(evs.map((e) => e.type)).toEqual(['CARD_TRANSACTION.DECLINED']);
          expect(evs[0]!.body.data).toMatchObject({ status: 'DECLINED', declineReason: 'SPEND_LIMIT_EXCEEDED' });
          expect(evs[0]!.body.operation).toEqual({ kind: 'AUTHORIZATION', issuerTransactionToken: a.token, amount });
        }
        const entries = await entriesOf(t.services.store.db, limited.accountId);
        expect(entries).toHaveLength(entriesBefore);
        expect(await balances(limited.accountId, limited.cardholderId)).toEqual({ available: 10_000, total: 10_000 });
        expect(entries.reduce((sum, e) => sum + Number(e.amount), 0), 'available = sum of the entries').toBe(10_000);
        expect(await balanceEvents(limited.accountId)).toBe(balanceEventsBefore);

        const exact = await authorize(limited.cardId, 2_500, 'ELECTRONICS');
        await drain();
        expect(await txn(exact.id)).toMatchObject({ status: 'AUTHORIZED', authorizedAmount: { amount: 2_500 }, pullSummary: { count: 1, totalAmount: 2_500 } });
        expect(await balances(limited.accountId, limited.cardholderId)).toEqual({ available: 7_500, total: 10_000 });
        expect((await entriesOf(t.services.store.db, limited.accountId)).reduce((sum, e) => sum + Number(e.amount), 0), 'available = sum of the entries').toBe(7_500);

        // The limit as it is when the authorization lands: cleared after the 202, the amount is approved.
        const cleared = await authorize(limited.cardId, 5_000, 'ELECTRONICS');
        expect((await t.caller.req('PATCH', `/cards/${limited.cardId}`, { maxSpendPerTransaction: null })).statusCode).toBe(200);
        await drain();
        expect(await txn(cleared.id)).toMatchObject({ status: 'AUTHORIZED', authorizedAmount: { amount: 5_000 } });
        expect(await balances(limited.accountId, limited.cardholderId)).toEqual({ available: 2_500, total: 10_000 });
      });

      it('a card that is not ACTIVE is CARD_PAUSED even above its limit', async () => {
        const c = await activeFundedCard(t, t.caller, 5_000);
        expect((await t.caller.req('PATCH', `/cards/${c.cardId}`, { state: 'FROZEN', maxSpendPerTransaction: 100 })).statusCode).toBe(200);
        const a = await authorize(c.cardId, 101, 'COFFEE');
        await drain();
        expect(await txn(a.id)).toMatchObject({ status: 'DECLINED', declineReason: 'CARD_PAUSED' });
      });

      it('every simulator on a declined transaction is a 409 naming DECLINED, before it lands (a suffix decline) and after', async () => {
        const a = await authorize(card.cardId, 300, 'SHOP-002');
        const early = await sim(card.cardId, 'clearing', { cardTransactionId: a.id, amount: 300 });
        expect(early.statusCode, early.body).toBe(409);
        expect(early.json()).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { currentStatus: 'DECLINED' } });
        await drain();
        for (const [kind, body] of [
          ['clearing', { cardTransactionId: a.id, amount: 300 }],
          ['clearing', { cardTransactionId: a.id, amount: 0 }],
          ['return', { cardTransactionId: a.id, amount: 1 }],
          ['authorization_expiry', { cardTransactionId: a.id }],
          ['return_reversal', { cardTransactionId: a.id }],
        ] as const) {
          const res = await sim(card.cardId, kind, body);
          expect(res.statusCode, `${kind}: ${res.body}`).toBe(409);
          expect(res.json().details.currentStatus).toBe('DECLINED');
        }
      });

      it('a declined transaction accepted a clearing before the balance decided it: the clearing is REJECTED and nothing moves', async () => {
        const empty = await activeFundedCard(t, t.caller, 0);
        const a = await authorize(empty.cardId, 100, 'COFFEE');
        expect((await sim(empty.cardId, 'clearing', { cardTransactionId: a.id, amount: 100 })).statusCode).toBe(202);
        await drain();
        const body = await txn(a.id);
        expect(body.status).toBe('DECLINED');
        expect(body.operations.map((o: { kind: string; status: string }) => [o.kind, o.status])).toEqual([
          ['AUTHORIZATION', 'REJECTED'],
          ['CLEARING', 'REJECTED'],
        ]);
        expect(await balances(empty.accountId, empty.cardholderId)).toEqual({ available: 0, total: 0 });
        expect((await events(a.id)).map((e) => e.type)).toEqual(['CARD_TRANSACTION.DECLINED']);
      });

      it('authorizations landing at once never spend the same funds twice: one approved, one declined', async () => {
        const c = await activeFundedCard(t, t.caller, 1_000);
        const [x, y] = await Promise.all([authorize(c.cardId, 600, 'A'), authorize(c.cardId, 600, 'B')]);
        await drain();
        const statuses = [(await txn(x.id)).status, (await txn(y.id)).status].sort();
        expect(statuses).toEqual(['AUTHORIZED', 'DECLINED']);
        expect(await balances(c.accountId, c.cardholderId)).toEqual({ available: 400, total: 1_000 });
      });
    });

    describe('funding sources', () => {
      it("are tried in priority order: the first with the amount available funds it; another customer's account is never bound", async () => {
        const holder = await activeFundedCard(t, t.caller, 100);
        const wallet = newId('InternalAccount');
        const now = Date.now();
        await t.services.store.transaction((uow) => insertAccountIfAbsent(uow, {
          id: wallet,
          platform_id: t.caller.platformId,
          customer_id: holder.cardholderId,
          type: 'EMBEDDED_WALLET',
          status: 'ACTIVE',
          currency: 'USD',
          available_balance: 0,
          total_balance: 0,
          created_at: now,
          updated_at: now,
        }));
        expect((await t.caller.req('POST', `/sandbox/internal-accounts/${wallet}/fund`, { amount: 5_000 })).statusCode).toBe(200);
        const stranger = await activeFundedCard(t, t.caller, 1_000_000);
        const refused = await t.caller.req('POST', '/cards', { cardholderId: holder.cardholderId, form: 'VIRTUAL', fundingSources: [stranger.accountId, holder.accountId, wallet] });
        expect(refused.statusCode, refused.body).toBe(400);
        expect(refused.json()).toMatchObject({ code: 'FUNDING_SOURCE_INELIGIBLE', details: { errors: [expect.objectContaining({ field: 'fundingSources[0]' })] } });
        const res = await t.caller.req('POST', '/cards', { cardholderId: holder.cardholderId, form: 'VIRTUAL', fundingSources: [holder.accountId, wallet] });
        expect(res.statusCode, res.body).toBe(201);
        const cardId = res.json().id as string;
        await provisionCards(t.services, t.app.log);
        const small = await authorize(cardId, 80, 'SMALL');
        const large = await authorize(cardId, 2_000, 'LARGE');
        const huge = await authorize(cardId, 6_000, 'HUGE');
        await drain();
        expect(await txn(small.id)).toMatchObject({ status: 'AUTHORIZED', accountId: holder.accountId });
        expect(await txn(large.id)).toMatchObject({ status: 'AUTHORIZED', accountId: wallet });
        expect(await txn(huge.id)).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS', accountId: holder.accountId });
        expect(await balances(holder.accountId, holder.cardholderId)).toEqual({ available: 20, total: 100 });
        expect(await balances(wallet, holder.cardholderId)).toEqual({ available: 3_000, total: 5_000 });
        expect(await balances(stranger.accountId, stranger.cardholderId)).toEqual({ available: 1_000_000, total: 1_000_000 });
      });
    });

    describe('pull reports', () => {
      it(`suffix 005: AUTHORIZED with the pull pending; confirmed ${DELAYED_PULL_MS} ms later by its own webhook, a clearing in between not waiting for it`, async () => {
        const a = await authorize(card.cardId, 400, 'SLOW BANK 005');
        expect((await sim(card.cardId, 'clearing', { cardTransactionId: a.id, amount: 400 })).statusCode).toBe(202);
        await drain();
        const evs = await events(a.id);
        expect(evs.map((e) => [e.type, e.body.operation.kind])).toEqual([
          ['CARD_TRANSACTION.AUTHORIZED', 'AUTHORIZATION'],
          ['CARD_TRANSACTION.SETTLED', 'CLEARING'],
          ['CARD_TRANSACTION.SETTLED', 'PULL_CONFIRMATION'],
        ]);
        expect(evs[0]!.body.data.pullSummary).toEqual({ count: 1, totalAmount: 400, pendingCount: 1 });
        expect(evs[1]!.body.data.pullSummary).toEqual({ count: 1, totalAmount: 400, pendingCount: 1 });
        expect(evs[2]!.body.data.pullSummary).toEqual({ count: 1, totalAmount: 400, pendingCount: 0 });
        expect(evs[1]!.at - evs[0]!.at).toBeLessThan(DELAYED_PULL_MS);
        expect(evs[2]!.at - evs[0]!.at).toBeGreaterThanOrEqual(DELAYED_PULL_MS);
        const body = await txn(a.id);
        expect(body).toMatchObject({ status: 'SETTLED', pullSummary: { pendingCount: 0 }, settlementSummary: { count: 1, totalAmount: 400 } });
        expect(body.operations.map((o: { kind: string; status: string }) => [o.kind, o.status])).toEqual([
          ['AUTHORIZATION', 'LANDED'],
          ['CLEARING', 'LANDED'],
          ['PULL_CONFIRMATION', 'LANDED'],
        ]);
      });

      it('suffix 006: AUTHORIZED, then EXCEPTION as the pull is reported failed; the amount stays held and the transaction takes no simulator', async () => {
        const start = await balances(card.accountId, card.cardholderId);
        const a = await authorize(card.cardId, 700, 'UBER EATS 006');
        await drain();
        const evs = await events(a.id);
        expect(evs.map((e) => [e.type, e.body.operation.kind])).toEqual([
          ['CARD_TRANSACTION.AUTHORIZED', 'AUTHORIZATION'],
          ['CARD_TRANSACTION.EXCEPTION', 'PULL_FAILURE'],
        ]);
        expect(evs[0]!.body.data.pullSummary).toEqual({ count: 1, totalAmount: 700, pendingCount: 1 });
        expect(evs[1]!.body.data.pullSummary).toEqual({ count: 1, totalAmount: 0, pendingCount: 0 });
        expect(await txn(a.id)).toMatchObject({ status: 'EXCEPTION', authorizedAmount: { amount: 700 } });
        expect(await balances(card.accountId, card.cardholderId)).toEqual({ available: start.available - 700, total: start.total });
        const res = await sim(card.cardId, 'clearing', { cardTransactionId: a.id, amount: 700 });
        expect(res.statusCode).toBe(409);
        expect(res.json().details.currentStatus).toBe('EXCEPTION');
      });
    });

    describe('summaries from the operations', () => {
      it('a clearing above the authorized amount is a second (post-hoc) pull; returns and their reversal roll up into refundSummary', async () => {
        const a = await authorize(card.cardId, 1_000, 'RESTAURANT');
        for (const [kind, body] of [
          ['clearing', { cardTransactionId: a.id, amount: 600 }],
          ['clearing', { cardTransactionId: a.id, amount: 650 }],
          ['return', { cardTransactionId: a.id, amount: 250 }],
          ['return', { cardTransactionId: a.id, amount: 1_000 }],
        ] as const) {
          expect((await sim(card.cardId, kind, body)).statusCode).toBe(202);
        }
        await drain();
        expect(await txn(a.id)).toMatchObject({
          status: 'REFUNDED',
          pullSummary: { count: 2, totalAmount: 1_250, pendingCount: 0 },
          settlementSummary: { count: 2, totalAmount: 1_250 },
          refundSummary: { count: 2, totalAmount: 1_250 },
        });
        expect((await sim(card.cardId, 'return_reversal', { cardTransactionId: a.id })).statusCode).toBe(202);
        await drain();
        expect(await txn(a.id)).toMatchObject({ status: 'SETTLED', refundSummary: { count: 1, totalAmount: 250 }, refundedAmount: { amount: 250 } });
      });
    });
  },
  { SANDBOX_DELAYED_PULL_MS: String(DELAYED_PULL_MS) },
);
