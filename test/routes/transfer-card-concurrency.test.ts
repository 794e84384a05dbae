import { afterAll, beforeAll, expect, it } from 'vitest';
import { isHoldKind } from '../../src/domain/accounts/ledger.js';
import { startWorker } from '../../src/jobs/index.js';
import type { Worker } from '../../src/jobs/worker.js';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { usdAccount } from '../helpers/external-accounts.js';
import { activeFundedCard, type FundedCard } from '../helpers/money.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

const ROUNDS = 4;
const FUNDS = 1_000;
/** Each draw is 400: of three authorizations and three transfers-out at once, exactly two fit in 1000. */
const DRAW = 400;
const EACH = 3;

describeEachEngine('a card authorization and a transfer-out drawing on one balance at the same moment', (t) => {
  let worker: Worker;
  let caller: Caller;
  const rounds: (FundedCard & { payee: string })[] = [];

  beforeAll(async () => {
    caller = await t.newCaller();
    for (let i = 0; i < ROUNDS; i++) {
      const card = await activeFundedCard(t, caller, FUNDS);
      expect((await caller.req('POST', `/sandbox/customers/${card.cardholderId}/kyc`, { status: 'APPROVED' })).statusCode).toBe(200);
      const payee = await caller.req('POST', '/customers/external-accounts', { customerId: card.cardholderId, ...usdAccount(`98765432${i}000`) });
      expect(payee.statusCode, payee.body).toBe(201);
      rounds.push({ ...card, payee: payee.json().id });
    }
    worker = startWorker(t.services, t.app.log);
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('are decided one after the other: never more than the balance is taken, and each balance is the sum of its ledger', async () => {
    for (const round of rounds) {
      const requests = Array.from({ length: EACH * 2 }, (_, i) =>
        i % 2 === 0
          ? caller.req('POST', `/sandbox/cards/${round.cardId}/simulate/authorization`, { amount: DRAW, currency: { code: 'USD' }, merchant: { descriptor: 'RACE SHOP' } })
          : caller.req('POST', '/transfer-out', { source: { accountId: round.accountId }, destination: { accountId: round.payee }, amount: DRAW }),
      );
      const answers = await Promise.all(requests);
      const authIds: string[] = [];
      const transferIds: string[] = [];
      answers.forEach((res, i) => {
        expect(res.statusCode, res.body).toBe(i % 2 === 0 ? 202 : 201);
        (i % 2 === 0 ? authIds : transferIds).push(res.json()[i % 2 === 0 ? 'cardTransactionId' : 'id']);
      });
      // Every authorization decided, every transfer landed or failed.
      const settled = async (id: string, done: (status: string) => boolean) =>
        until(`${id} decided`, async () => {
          const res = await caller.req('GET', `/transactions/${id}`);
          return res.statusCode === 200 && done(res.json().status) ? (res.json().status as string) : undefined;
        });
      const authStatuses = await Promise.all(authIds.map((id) => settled(id, (s) => s === 'AUTHORIZED' || s === 'DECLINED')));
      const transferStatuses = await Promise.all(transferIds.map((id) => settled(id, (s) => s === 'COMPLETED' || s === 'FAILED')));
      const approved = authStatuses.filter((s) => s === 'AUTHORIZED').length;
      const sent = transferStatuses.filter((s) => s === 'COMPLETED').length;
      expect(approved + sent, `authorizations ${authStatuses.join(',')}; transfers ${transferStatuses.join(',')}`).toBe(Math.floor(FUNDS / DRAW));

      const account = (await caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(round.cardholderId)}&currency=USD`)).json().data[0];
      expect(account.totalBalance.amount).toBe(FUNDS - sent * DRAW);
      expect(account.balance.amount).toBe(FUNDS - (sent + approved) * DRAW);
      expect(account.balance.amount).toBeGreaterThanOrEqual(0);
      const entries = await entriesOf(t.services.store.db, round.accountId);
      expect(entries.reduce((s, e) => s + Number(e.amount), 0)).toBe(account.balance.amount);
      expect(entries.filter((e) => !isHoldKind(e.kind)).reduce((s, e) => s + Number(e.amount), 0)).toBe(account.totalBalance.amount);
    }
  });
});
