import { expect } from 'vitest';
import type { Executor } from '../../src/store/store.js';

/**
 * A JSON POST of traffic against a server that may be killed meanwhile: its status and body, or
 * undefined when no answer came (whether the call was accepted, the database tells).
 */
export async function postUnlessGone<T>(url: string, auth: string, body: unknown): Promise<{ status: number; json: T } | undefined> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as T };
  } catch {
    return undefined;
  }
}

/** Each chain walks one transaction through every simulator that moves money, in a valid order. */
const CHAIN: { kind: string; amount?: number }[] = [
  { kind: 'authorization', amount: 1000 },
  { kind: 'clearing', amount: 400 },
  { kind: 'clearing', amount: 600 },
  { kind: 'return', amount: 1000 },
  { kind: 'return_reversal' },
];

/** The transaction after the first n operations of the chain have landed, each exactly once. */
const AFTER: { status: string; settled: number; refunded: number; settlements: number; refunds: number }[] = [
  { status: 'AUTHORIZED', settled: 0, refunded: 0, settlements: 0, refunds: 0 },
  { status: 'PARTIALLY_SETTLED', settled: 400, refunded: 0, settlements: 1, refunds: 0 },
  { status: 'SETTLED', settled: 1000, refunded: 0, settlements: 2, refunds: 0 },
  { status: 'REFUNDED', settled: 1000, refunded: 1000, settlements: 2, refunds: 1 },
  { status: 'SETTLED', settled: 1000, refunded: 0, settlements: 2, refunds: 0 },
];

export interface Chain {
  cardId: string;
  cardTransactionId?: string;
  /** Issuer transaction tokens of the calls answered 202, in order. */
  tokens: string[];
}

export interface Traffic {
  chains: Chain[];
  /** Calls answered 202 so far. */
  accepted(): number;
  /** Stops starting calls and waits for the ones under way (a call to a dead server just fails). */
  stop(): Promise<void>;
}

/**
 * Simulation calls from `clients` concurrent clients, each running chains one call at a time
 * against the base URLs in turn, until stop() or until a call gets no answer.
 */
export function startTraffic(opts: { baseUrls: string[]; auth: string; cardIds: string[]; clients: number }): Traffic {
  const chains: Chain[] = [];
  let running = true;
  let accepted = 0;
  let calls = 0;
  const client = async (n: number) => {
    while (running) {
      const chain: Chain = { cardId: opts.cardIds[n % opts.cardIds.length]!, tokens: [] };
      chains.push(chain);
      for (const step of CHAIN) {
        if (!running) return;
        const base = opts.baseUrls[calls++ % opts.baseUrls.length]!;
        const body = { ...(step.kind === 'authorization' ? { currency: { code: 'USD' }, merchant: { descriptor: 'TRAFFIC' } } : { cardTransactionId: chain.cardTransactionId }), ...(step.amount === undefined ? {} : { amount: step.amount }) };
        const answer = await postUnlessGone<{ issuerTransactionToken: string; cardTransactionId?: string }>(`${base}/sandbox/cards/${chain.cardId}/simulate/${step.kind}`, opts.auth, body);
        if (!answer) return;
        const { status, json } = answer;
        expect(status, JSON.stringify(json)).toBe(202);
        accepted++;
        chain.tokens.push(json.issuerTransactionToken);
        chain.cardTransactionId ??= json.cardTransactionId;
      }
    }
  };
  const clients = Array.from({ length: opts.clients }, (_, n) => client(n));
  return {
    chains,
    accepted: () => accepted,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** Operations still waiting to land. */
export async function pendingOperations(db: Executor): Promise<number> {
  const r = await db.selectFrom('card_operations').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'PENDING').executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Asserts that every accepted operation landed exactly once: every call answered 202 is recorded,
 * every recorded operation LANDED, each transaction is in the state its landed operations make,
 * and there is exactly one webhook event per landed operation, of the type that state gives.
 * Returns the webhook event ids.
 */
export async function expectLandedExactlyOnce(db: Executor, chains: Chain[]): Promise<string[]> {
  const ops = await db.selectFrom('card_operations').select(['card_transaction_id', 'seq', 'kind', 'amount', 'status', 'issuer_transaction_token']).orderBy('seq').execute();
  const txns = new Map((await db.selectFrom('card_transactions').selectAll().execute()).map((t) => [t.id, t]));
  const events = await db.selectFrom('webhook_events').select(['id', 'type', 'body']).where('type', 'like', 'CARD_TRANSACTION.%').execute();

  const answered = chains.flatMap((c) => c.tokens);
  const recorded = new Set(ops.map((o) => o.issuer_transaction_token));
  expect(answered.filter((t) => !recorded.has(t)), 'accepted calls without an operation').toEqual([]);
  expect(ops.filter((o) => o.status !== 'LANDED'), 'operations not landed').toEqual([]);

  const eventsByToken = new Map<string, { id: string; type: string }[]>();
  for (const e of events) {
    const token = (JSON.parse(e.body) as { operation: { issuerTransactionToken: string } }).operation.issuerTransactionToken;
    eventsByToken.set(token, [...(eventsByToken.get(token) ?? []), e]);
  }
  expect(events.length, 'one webhook event per landed operation').toBe(ops.length);

  const byTxn = new Map<string, typeof ops>();
  for (const o of ops) byTxn.set(o.card_transaction_id, [...(byTxn.get(o.card_transaction_id) ?? []), o]);
  for (const [id, list] of byTxn) {
    const kinds = list.map((o) => o.kind.toLowerCase());
    expect(kinds, id).toEqual(CHAIN.slice(0, list.length).map((s) => s.kind));
    const after = AFTER[list.length - 1]!;
    const t = txns.get(id)!;
    expect([t.status, t.authorized_amount, t.settled_amount, t.refunded_amount, t.settlement_count, t.refund_count], id).toEqual([after.status, 1000, after.settled, after.refunded, after.settlements, after.refunds]);
    for (const [i, op] of list.entries()) {
      expect(eventsByToken.get(op.issuer_transaction_token)?.map((e) => e.type), `${id} operation ${i}`).toEqual([`CARD_TRANSACTION.${AFTER[i]!.status}`]);
    }
  }
  // The calls answered 202 for a transaction are the first of its operations, in order.
  for (const chain of chains.filter((c) => c.tokens.length > 0)) {
    expect(byTxn.get(chain.cardTransactionId!)!.slice(0, chain.tokens.length).map((o) => o.issuer_transaction_token)).toEqual(chain.tokens);
  }
  return events.map((e) => e.id);
}
