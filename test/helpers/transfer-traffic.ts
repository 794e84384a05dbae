import { expect } from 'vitest';
import { TRANSFER_SETTLEMENT_JOB } from '../../src/domain/payments/payment-lifecycle.js';
import type { Executor } from '../../src/store/store.js';
import { postUnlessGone } from './simulation-traffic.js';

export interface AcceptedTransfer {
  id: string;
  type: 'OUTGOING' | 'INCOMING';
  amount: number;
}

export interface TransferTraffic {
  /** The transfers answered 201, in the order answered. */
  transfers: AcceptedTransfer[];
  accepted(): number;
  /** Stops starting calls and waits for the ones under way (a call to a dead server just fails). */
  stop(): Promise<void>;
}

/**
 * Transfers from `clients` concurrent clients, each alternating POST /transfer-out and POST
 * /transfer-in of `amount` between the internal account and the external account (whose suffix must
 * make them succeed), one call at a time against the base URLs in turn, until stop() or until a call
 * gets no answer.
 */
export function startTransferTraffic(opts: { baseUrls: string[]; auth: string; internalAccountId: string; externalAccountId: string; clients: number; amount: number }): TransferTraffic {
  const transfers: AcceptedTransfer[] = [];
  let running = true;
  let calls = 0;
  const client = async (n: number) => {
    for (let i = n; running; i++) {
      const type = i % 2 === 0 ? 'OUTGOING' : 'INCOMING';
      const base = opts.baseUrls[calls++ % opts.baseUrls.length]!;
      const body =
        type === 'OUTGOING'
          ? { source: { accountId: opts.internalAccountId }, destination: { accountId: opts.externalAccountId }, amount: opts.amount }
          : { source: { accountId: opts.externalAccountId }, destination: { accountId: opts.internalAccountId }, amount: opts.amount };
      const answer = await postUnlessGone<{ id: string; status: string; type: string }>(`${base}/${type === 'OUTGOING' ? 'transfer-out' : 'transfer-in'}`, opts.auth, body);
      if (!answer) return; // The server is gone; whether this call was accepted, the database tells.
      const { status, json } = answer;
      expect(status, JSON.stringify(json)).toBe(201);
      expect([json.type, json.status]).toEqual([type, 'PENDING']);
      transfers.push({ id: json.id, type, amount: opts.amount });
    }
  };
  const clients = Array.from({ length: opts.clients }, (_, n) => client(n));
  return {
    transfers,
    accepted: () => transfers.length,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** What one completed transfer writes to its internal account, in the order of the kinds' names. */
const SETTLED_ENTRIES = {
  OUTGOING: (a: number) => [['TRANSFER_OUT_DEBIT', -a], ['TRANSFER_OUT_HOLD', -a], ['TRANSFER_OUT_HOLD_RELEASE', a]],
  INCOMING: (a: number) => [['TRANSFER_IN_CREDIT', a]],
};
const EVENT_PREFIX = { OUTGOING: 'OUTGOING_PAYMENT', INCOMING: 'INCOMING_PAYMENT' };

/**
 * Asserts that every transfer ended exactly once: every call answered 201 is recorded, and every
 * recorded transfer (those whose answer a kill cut off included) is COMPLETED, settled once (its
 * hold, release and debit, or its credit, each written once; one settlement job, done), with exactly
 * one PENDING then one COMPLETED webhook event. Answers the transfers' webhook event ids.
 */
export async function expectTransfersEndedExactlyOnce(db: Executor, accepted: AcceptedTransfer[]): Promise<string[]> {
  const rows = await db.selectFrom('payment_transactions').select(['id', 'type', 'status', 'amount', 'settled_at']).execute();
  const recorded = new Map(rows.map((r) => [r.id, r]));
  expect(accepted.filter((t) => recorded.get(t.id)?.type !== t.type), 'accepted transfers not recorded as made').toEqual([]);
  expect(rows.filter((r) => r.status !== 'COMPLETED' || r.settled_at === null), 'transfers not COMPLETED').toEqual([]);

  const entries = await db.selectFrom('ledger_entries').select(['payment_transaction_id', 'kind', 'amount']).where('payment_transaction_id', 'is not', null).execute();
  const entriesOf = new Map<string, [string, number][]>();
  for (const e of entries) entriesOf.set(e.payment_transaction_id!, [...(entriesOf.get(e.payment_transaction_id!) ?? []), [e.kind, Number(e.amount)]]);
  const jobs = await db.selectFrom('jobs').select(['payload', 'state']).where('kind', '=', TRANSFER_SETTLEMENT_JOB).execute();
  const jobsOf = new Map<string, string[]>();
  for (const j of jobs) {
    const { transactionId } = JSON.parse(j.payload) as { transactionId: string };
    jobsOf.set(transactionId, [...(jobsOf.get(transactionId) ?? []), j.state]);
  }
  const events = await db.selectFrom('webhook_events').select(['id', 'type', 'body']).where((eb) => eb.or([eb('type', 'like', 'OUTGOING_PAYMENT.%'), eb('type', 'like', 'INCOMING_PAYMENT.%')])).orderBy('id').execute();
  const eventsOf = new Map<string, string[]>();
  for (const e of events) {
    const id = (JSON.parse(e.body) as { data: { id: string } }).data.id;
    eventsOf.set(id, [...(eventsOf.get(id) ?? []), e.type]);
  }

  const type = (r: (typeof rows)[number]) => r.type as 'OUTGOING' | 'INCOMING';
  const actual = rows.map((r) => ({
    id: r.id,
    entries: (entriesOf.get(r.id) ?? []).sort(([a], [b]) => a.localeCompare(b)),
    jobs: jobsOf.get(r.id),
    events: eventsOf.get(r.id),
  }));
  const expected = rows.map((r) => ({
    id: r.id,
    entries: SETTLED_ENTRIES[type(r)](Number(r.amount)),
    jobs: ['done'],
    events: [`${EVENT_PREFIX[type(r)]}.PENDING`, `${EVENT_PREFIX[type(r)]}.COMPLETED`],
  }));
  expect(actual).toEqual(expected);
  expect(events.length).toBe(rows.length * 2);
  return events.map((e) => e.id);
}
