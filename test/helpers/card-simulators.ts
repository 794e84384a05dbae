import { expect } from 'vitest';
import { isHoldKind } from '../../src/domain/accounts/ledger.js';
import { landOperations } from '../../src/domain/cards/card-simulations.js';
import { startWorker } from '../../src/jobs/index.js';
import { entriesOf } from '../../src/store/accounts-repo.js';
import { operationsOf } from '../../src/store/cards-repo.js';
import { activeFundedCard } from './money.js';
import type { Caller, TestApp } from './test-app.js';
import { connectReceiver, startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './webhook-receiver.js';

export interface Balances {
  available: number;
  total: number;
}

export const USD = { code: 'USD' };

/**
 * A funded active card, a running worker and a real receiver that verifies every delivery: each
 * step simulates through the API, waits for the landed operation's verified webhook, and checks the
 * account against the model the test keeps and against the sum of its ledger entries.
 */
export interface SimulatorHarness {
  caller: Caller;
  cardId: string;
  accountId: string;
  /** What the test expects of the card's funding account; a test moves it as its steps do. */
  model: Balances;
  post(kind: string, body: unknown, cardId?: string): ReturnType<Caller['req']>;
  /** Simulates, expects 202, and waits for the verified `type` webhook carrying the call's token. */
  land(kind: string, body: unknown, type: string, cardId?: string): Promise<{ id: string; token: string; webhook: ReceivedWebhook; txn: Record<string, any> }>;
  /** The account's balances through the API equal the model, and the sums of its ledger entries. */
  expectBalances(step: string): Promise<void>;
  /** The operation landed once, sent one event, and landing its job again changes nothing. */
  expectLandedOnce(cardTransactionId: string, token: string): Promise<void>;
  setCardState(state: 'ACTIVE' | 'FROZEN', cardId?: string): Promise<void>;
  stop(): Promise<void>;
}

const SILENT = { info() {}, warn() {}, error() {} };

export async function startSimulatorHarness(t: TestApp, funds: number): Promise<SimulatorHarness> {
  const caller = await t.newCaller();
  const receiver: WebhookReceiver = await startWebhookReceiver();
  const worker = startWorker(t.services, t.app.log);
  await connectReceiver(caller, receiver);
  const { cardId, accountId, cardholderId } = await activeFundedCard(t, caller, funds);
  const post = (kind: string, body: unknown, card = cardId) => caller.req('POST', `/sandbox/cards/${card}/simulate/${kind}`, body);
  const tokenOf = (d: ReceivedWebhook) => (d.payload?.operation as { issuerTransactionToken?: string } | undefined)?.issuerTransactionToken;
  const eventsOf = async (token: string) =>
    (await t.services.store.db.selectFrom('webhook_events').select('body').where('platform_id', '=', caller.platformId).execute()).filter(
      (e) => (JSON.parse(e.body) as { operation?: { issuerTransactionToken?: string } }).operation?.issuerTransactionToken === token,
    ).length;

  const h: SimulatorHarness = {
    caller,
    cardId,
    accountId,
    model: { available: funds, total: funds },
    post,
    async land(kind, body, type, card = cardId) {
      const res = await post(kind, body, card);
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(202);
      const token = res.json().issuerTransactionToken as string;
      await receiver.waitFor((ds) => ds.some((d) => d.verified && tokenOf(d) === token), 20_000).catch((err: Error) => {
        throw new Error(`${kind}: no verified webhook for ${token}: ${err.message}; got ${receiver.deliveries.map((d) => d.payload?.type).join(', ')}`);
      });
      const webhook = receiver.deliveries.find((d) => d.verified && tokenOf(d) === token)!;
      expect(webhook.payload?.type, kind).toBe(type);
      const id = (res.json().cardTransactionId as string | undefined) ?? (body as { cardTransactionId: string }).cardTransactionId;
      const txn = (await caller.req('GET', `/transactions/${id}`)).json() as Record<string, any>;
      expect((webhook.payload?.data as { id: string }).id).toBe(id);
      return { id, token, webhook, txn };
    },
    async expectBalances(step) {
      const page = (await caller.req('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(cardholderId)}&currency=USD`)).json();
      const account = page.data.find((a: { id: string }) => a.id === accountId);
      expect({ available: account.balance.amount, total: account.totalBalance.amount }, step).toEqual(h.model);
      const entries = await entriesOf(t.services.store.db, accountId);
      expect(entries.reduce((sum, e) => sum + Number(e.amount), 0), `${step}: available = sum of the entries`).toBe(h.model.available);
      const settled = entries.filter((e) => !isHoldKind(e.kind));
      expect(settled.reduce((sum, e) => sum + Number(e.amount), 0), `${step}: total = sum of the entries that are not holds`).toBe(h.model.total);
    },
    async expectLandedOnce(cardTransactionId, token) {
      const ops = await operationsOf(t.services.store.db, [cardTransactionId]);
      const mine = ops.filter((o) => o.issuer_transaction_token === token);
      expect(mine.length).toBe(1);
      expect(mine[0]!.status).not.toBe('PENDING');
      expect(await eventsOf(token)).toBe(1);
      const entries = (await entriesOf(t.services.store.db, accountId)).length;
      // A job that runs again (a crash before it was marked done) finds its operation landed and changes nothing.
      await t.services.store.transaction((uow) => landOperations(uow, [{ platformId: caller.platformId, cardTransactionId, operationId: mine[0]!.id }], SILENT));
      expect(await eventsOf(token)).toBe(1);
      expect((await entriesOf(t.services.store.db, accountId)).length).toBe(entries);
      expect((await operationsOf(t.services.store.db, [cardTransactionId])).filter((o) => o.issuer_transaction_token === token)).toEqual(mine);
    },
    async setCardState(state, card = cardId) {
      const res = await caller.req('PATCH', `/cards/${card}`, { state });
      expect(res.statusCode, res.body).toBe(200);
    },
    async stop() {
      await worker.stop();
      await receiver.stop();
    },
  };
  return h;
}

/** A card transaction's pullSummary, settlementSummary and refundSummary, as [count, totalAmount(, pendingCount)]. */
export function summaries(pull: [number, number, number], settlement: [number, number] = [0, 0], refund: [number, number] = [0, 0]) {
  return {
    pullSummary: { count: pull[0], totalAmount: pull[1], pendingCount: pull[2] },
    settlementSummary: { count: settlement[0], totalAmount: settlement[1] },
    refundSummary: { count: refund[0], totalAmount: refund[1] },
  };
}
