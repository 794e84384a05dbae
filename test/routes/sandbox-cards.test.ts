import { beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { operationsOf } from '../../src/store/cards-repo.js';
import { drainCardJobs } from '../helpers/card-jobs.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { activeFundedCard } from '../helpers/money.js';
import { BASE, describeEachEngine, type Caller } from '../helpers/test-app.js';

type Kind = 'clearing' | 'return' | 'authorization_expiry' | 'return_reversal';

describeEachEngine('sandbox card simulators', (t) => {
  let cardId: string;
  let otherCardId: string;
  let other: Caller;

  const sim = (kind: string, body: unknown, card = cardId, caller = t.caller) => caller.req('POST', `/sandbox/cards/${card}/simulate/${kind}`, body);
  const drain = () => drainCardJobs(t.services, t.app.log);
  const txn = async (id: string) => (await t.caller.req('GET', `/transactions/${id}`)).json();

  async function authorize(amount = 1000, card = cardId): Promise<{ id: string; token: string }> {
    const res = await sim('authorization', { amount, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } }, card);
    expect(res.statusCode).toBe(202);
    return { id: res.json().cardTransactionId, token: res.json().issuerTransactionToken };
  }
  async function step(kind: Kind, id: string, amount?: number): Promise<string> {
    const res = await sim(kind, amount === undefined ? { cardTransactionId: id } : { cardTransactionId: id, amount });
    expect(res.statusCode, res.body).toBe(202);
    expect(Object.keys(res.json())).toEqual(['issuerTransactionToken']);
    return res.json().issuerTransactionToken;
  }
  /** A landed transaction brought to a state by the given steps. */
  async function inState(steps: [Kind, number?][]): Promise<string> {
    const { id } = await authorize(1000);
    for (const [kind, amount] of steps) await step(kind, id, amount);
    await drain();
    return id;
  }
  async function events(id: string) {
    const rows = await t.services.store.db.selectFrom('webhook_events').select(['type', 'body']).orderBy('created_at').orderBy('id').execute();
    return rows.map((r) => ({ type: r.type, body: JSON.parse(r.body) })).filter((e) => e.body.data?.id === id);
  }
  const expect409 = (res: LightMyRequestResponse, status: string) => {
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION', details: { currentStatus: status } });
    expect(res.json().message).toContain(status);
  };

  beforeAll(async () => {
    const funded = await activeFundedCard(t);
    cardId = funded.cardId;
    otherCardId = (await activeFundedCard(t, t.caller, 0, funded.cardholderId)).cardId;
    other = await t.newCaller();
  });

  describe('authorization', () => {
    it('answers 202 with a fresh token and the transaction id; the transaction appears AUTHORIZED when it lands', async () => {
      const a = await authorize(1250);
      const b = await authorize(1250);
      expect(a.token).not.toBe(b.token);
      expect((await t.caller.req('GET', `/transactions/${a.id}`)).statusCode).toBe(404);
      await drain();
      const body = await txn(a.id);
      expect(body).toMatchObject({
        id: a.id,
        type: 'CARD',
        status: 'AUTHORIZED',
        direction: 'DEBIT',
        cardId,
        merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' },
        authorizedAmount: { amount: 1250, currency: { code: 'USD', decimals: 2 } },
        settledAmount: { amount: 0 },
        refundedAmount: { amount: 0 },
        issuerTransactionToken: a.token,
      });
      expect(body.operations).toEqual([
        expect.objectContaining({ kind: 'AUTHORIZATION', amount: 1250, issuerTransactionToken: a.token, status: 'LANDED' }),
      ]);
      const evs = await events(a.id);
      expect(evs.map((e) => e.type)).toEqual(['CARD_TRANSACTION.AUTHORIZED']);
      expect(evs[0]!.body.operation).toEqual({ kind: 'AUTHORIZATION', issuerTransactionToken: a.token, amount: 1250 });
    });

    it('validates the body, reporting every field', async () => {
      const res = await sim('authorization', { amount: 0, currency: { code: 'usd' }, merchant: { country: 'XX' }, tip: 1 });
      expect(res.statusCode).toBe(400);
      const fields = res.json().details.errors.map((e: { field: string }) => e.field).sort();
      expect(fields).toEqual(['amount', 'currency.code', 'merchant.country', 'merchant.descriptor', 'tip']);
      const bare = await sim('authorization', { amount: 5, merchant: { descriptor: 'X' } });
      expect(bare.statusCode, bare.body).toBe(400);
      expect(bare.json().details.errors.map((e: { field: string }) => e.field)).toEqual(['currency']);
      const eur = await sim('authorization', { amount: 5, currency: { code: 'EUR' }, merchant: { descriptor: 'X' } });
      expect(eur.statusCode).toBe(400);
      expect(eur.json().details.errors).toEqual([expect.objectContaining({ field: 'currency.code', constraint: { enum: ['USD'] } })]);
    });
  });

  describe('transitions', () => {
    it('clearing settles part (PARTIALLY_SETTLED) then the rest (SETTLED); the tokens appear on the landed operations', async () => {
      const { id } = await authorize(1000);
      const t1 = await step('clearing', id, 400);
      await drain();
      expect(await txn(id)).toMatchObject({ status: 'PARTIALLY_SETTLED', settledAmount: { amount: 400 }, settlementSummary: { count: 1, totalAmount: 400 } });
      const t2 = await step('clearing', id, 600);
      await drain();
      const body = await txn(id);
      expect(body).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 1000 }, settlementSummary: { count: 2, totalAmount: 1000 } });
      expect(body.operations.map((o: { issuerTransactionToken: string; status: string }) => [o.issuerTransactionToken, o.status]).slice(1)).toEqual([
        [t1, 'LANDED'],
        [t2, 'LANDED'],
      ]);
      expect((await events(id)).map((e) => e.type)).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.PARTIALLY_SETTLED', 'CARD_TRANSACTION.SETTLED']);
    });

    it('a partial return keeps SETTLED; the rest makes it REFUNDED; a return reversal undoes the last return', async () => {
      const id = await inState([['clearing', 1000]]);
      await step('return', id, 300);
      await drain();
      expect(await txn(id)).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 300 }, refundSummary: { count: 1, totalAmount: 300 } });
      await step('return', id, 700);
      await drain();
      expect(await txn(id)).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: 1000 } });
      const token = await step('return_reversal', id);
      await drain();
      const body = await txn(id);
      expect(body).toMatchObject({ status: 'SETTLED', refundedAmount: { amount: 300 }, refundSummary: { count: 1, totalAmount: 300 } });
      expect(body.operations.at(-1)).toMatchObject({ kind: 'RETURN_REVERSAL', amount: 700, issuerTransactionToken: token, status: 'LANDED' });
      const evs = await events(id);
      expect(evs.at(-1)).toMatchObject({ type: 'CARD_TRANSACTION.SETTLED', body: { operation: { kind: 'RETURN_REVERSAL', issuerTransactionToken: token, amount: 700 } } });
    });

    it('a return reversal on a transaction refunded from PARTIALLY_SETTLED goes back to PARTIALLY_SETTLED', async () => {
      const id = await inState([['clearing', 400], ['return', 400]]);
      expect(await txn(id)).toMatchObject({ status: 'REFUNDED', settledAmount: { amount: 400 }, refundedAmount: { amount: 400 } });
      await step('return_reversal', id);
      await drain();
      expect(await txn(id)).toMatchObject({ status: 'PARTIALLY_SETTLED', refundedAmount: { amount: 0 }, refundSummary: { count: 0 } });
    });

    it('authorization_expiry on a fully open transaction makes it EXPIRED, releasing the hold', async () => {
      const { id } = await authorize(900);
      await drain();
      const token = await step('authorization_expiry', id);
      await drain();
      const body = await txn(id);
      expect(body.status).toBe('EXPIRED');
      expect(body.operations.at(-1)).toMatchObject({ kind: 'AUTHORIZATION_EXPIRY', amount: 900, issuerTransactionToken: token, status: 'LANDED' });
      expect((await events(id)).at(-1)!.type).toBe('CARD_TRANSACTION.EXPIRED');
    });

    it('chains clearing -> return -> return_reversal without waiting for each to land', async () => {
      const { id } = await authorize(500);
      const tokens = [await step('clearing', id, 500), await step('return', id, 500), await step('return_reversal', id)];
      await drain();
      const body = await txn(id);
      expect(body.status).toBe('SETTLED');
      expect(body.operations.map((o: { kind: string; status: string; issuerTransactionToken: string }) => [o.kind, o.status, o.issuerTransactionToken]).slice(1)).toEqual([
        ['CLEARING', 'LANDED', tokens[0]],
        ['RETURN', 'LANDED', tokens[1]],
        ['RETURN_REVERSAL', 'LANDED', tokens[2]],
      ]);
      expect((await events(id)).map((e) => e.type)).toEqual([
        'CARD_TRANSACTION.AUTHORIZED',
        'CARD_TRANSACTION.SETTLED',
        'CARD_TRANSACTION.REFUNDED',
        'CARD_TRANSACTION.SETTLED',
      ]);
    });
  });

  describe('refused transitions', () => {
    const ALL: Kind[] = ['clearing', 'return', 'authorization_expiry', 'return_reversal'];
    const ALLOWED: Record<string, Kind[]> = {
      AUTHORIZED: ['clearing', 'authorization_expiry'],
      PARTIALLY_SETTLED: ['clearing', 'return'],
      SETTLED: ['return'],
      REFUNDED: ['return_reversal'],
      EXPIRED: [],
    };

    it('refuses every kind a state does not allow with 409 naming the status, and queues nothing', async () => {
      const states: Record<string, string> = {
        AUTHORIZED: await inState([]),
        PARTIALLY_SETTLED: await inState([['clearing', 100]]),
        SETTLED: await inState([['clearing', 1000]]),
        REFUNDED: await inState([['clearing', 1000], ['return', 1000]]),
        EXPIRED: await inState([['authorization_expiry']]),
      };
      const jobsBefore = (await t.services.store.db.selectFrom('jobs').select('id').execute()).length;
      for (const [status, id] of Object.entries(states)) {
        expect((await txn(id)).status).toBe(status);
        for (const kind of ALL.filter((k) => !ALLOWED[status]!.includes(k))) {
          expect409(await sim(kind, kind === 'clearing' || kind === 'return' ? { cardTransactionId: id, amount: 1 } : { cardTransactionId: id }), status);
        }
      }
      expect((await t.services.store.db.selectFrom('jobs').select('id').execute()).length).toBe(jobsBefore);
    });

    it('expiry is refused after any clearing, even one accepted but not landed yet', async () => {
      const { id } = await authorize(1000);
      await step('clearing', id, 1);
      const res = await sim('authorization_expiry', { cardTransactionId: id });
      expect409(res, 'PARTIALLY_SETTLED');
      expect(res.json().message).toContain('already accepted land');
      await drain();
      expect409(await sim('authorization_expiry', { cardTransactionId: id }), 'PARTIALLY_SETTLED');
    });

    it('return_reversal is refused unless REFUNDED, including after a partial return', async () => {
      const id = await inState([['clearing', 1000], ['return', 10]]);
      expect409(await sim('return_reversal', { cardTransactionId: id }), 'SETTLED');
    });

    it('refuses a return beyond the net settled amount with 400 on amount', async () => {
      const id = await inState([['clearing', 600]]);
      const over = await sim('return', { cardTransactionId: id, amount: 601 });
      expect(over.statusCode).toBe(400);
      expect(over.json()).toMatchObject({ code: 'INVALID_INPUT', details: { errors: [{ field: 'amount' }] } });
    });

    it('refuses a clearing of amount 0 (expiry) once anything is settled, even if not landed yet', async () => {
      const { id } = await authorize(1000);
      await step('clearing', id, 1);
      expect409(await sim('clearing', { cardTransactionId: id, amount: 0 }), 'PARTIALLY_SETTLED');
      await drain();
      expect409(await sim('clearing', { cardTransactionId: id, amount: 0 }), 'PARTIALLY_SETTLED');
    });
  });

  describe('clearing as the document has it', () => {
    it('amount 0 expires a fully open authorization, exactly as authorization_expiry', async () => {
      const { id } = await authorize(1000);
      const token = await step('clearing', id, 0);
      await drain();
      const body = await txn(id);
      expect(body).toMatchObject({ status: 'EXPIRED', settledAmount: { amount: 0 }, authorizedAmount: { amount: 1000 } });
      expect(body.operations.at(-1)).toMatchObject({ kind: 'CLEARING', amount: 0, issuerTransactionToken: token, status: 'LANDED' });
      expect((await events(id)).map((e) => e.type)).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.EXPIRED']);
      expect409(await sim('clearing', { cardTransactionId: id, amount: 1 }), 'EXPIRED');
    });

    it('an amount above the open amount settles the transaction, the extra included, and returns can refund all of it', async () => {
      const { id } = await authorize(1000);
      await step('clearing', id, 600);
      await step('clearing', id, 550);
      await drain();
      expect(await txn(id)).toMatchObject({ status: 'SETTLED', authorizedAmount: { amount: 1000 }, settledAmount: { amount: 1150 } });
      expect409(await sim('clearing', { cardTransactionId: id, amount: 1 }), 'SETTLED');
      await step('return', id, 1150);
      await drain();
      expect(await txn(id)).toMatchObject({ status: 'REFUNDED', refundedAmount: { amount: 1150 } });
    });
  });

  describe('errors', () => {
    it('answers 404 for an unknown or foreign card and for a transaction not on that card', async () => {
      const { id } = await authorize(100);
      await drain();
      const cases: [string, string, Caller, string][] = [
        ['Card:unknown', id, t.caller, 'REFERENCE_NOT_FOUND'],
        [cardId, id, other, 'REFERENCE_NOT_FOUND'],
        [otherCardId, id, t.caller, 'TRANSACTION_NOT_FOUND'],
        [cardId, 'CardTransaction:unknown', t.caller, 'TRANSACTION_NOT_FOUND'],
      ];
      for (const [card, txnId, caller, code] of cases) {
        const res = await sim('authorization_expiry', { cardTransactionId: txnId }, card, caller);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ status: 404, code });
      }
      expect((await sim('authorization', { amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'X' } }, 'Card:unknown')).statusCode).toBe(404);
      expect((await other.req('GET', `/transactions/${id}`)).json()).toMatchObject({ status: 404, code: 'TRANSACTION_NOT_FOUND' });
    });

    it('reports every invalid field of a simulation request', async () => {
      const res = await sim('clearing', { amount: -1, note: 'x' });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'cardTransactionId', 'note']);
      const expiry = await sim('authorization_expiry', { cardTransactionId: '', amount: 5 });
      expect(expiry.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'cardTransactionId']);
      const notJson = await t.caller.req('POST', `/sandbox/cards/${cardId}/simulate/return_reversal`, '{', { 'content-type': 'application/json' });
      expect(notJson.json().code).toBe('INVALID_REQUEST_FORMAT');
    });

    it('answers a production token exactly like an unknown path', async () => {
      const prod = await t.newCaller('production');
      for (const kind of ['authorization', 'clearing', 'return', 'authorization_expiry', 'return_reversal']) {
        const url = `/sandbox/cards/${cardId}/simulate/${kind}`;
        const res = await prod.req('POST', url, { cardTransactionId: 'CardTransaction:x' });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ status: 404, code: 'REFERENCE_NOT_FOUND', message: `No operation POST ${BASE}${url}` });
      }
      const unknown = await t.caller.req('POST', `/sandbox/cards/${cardId}/simulate/teleport`, {});
      expect(unknown.json()).toEqual({ status: 404, code: 'REFERENCE_NOT_FOUND', message: `No operation POST ${BASE}/sandbox/cards/${cardId}/simulate/teleport` });
    });
  });

  describe('concurrency and re-checks', () => {
    it('50 concurrent expiry calls on one open transaction: one 202, 49 409, exactly one landed expiry', async () => {
      const { id } = await authorize(700);
      await drain();
      const results = await Promise.all(Array.from({ length: 50 }, () => sim('authorization_expiry', { cardTransactionId: id })));
      const codes = results.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 202)).toHaveLength(1);
      expect(codes.filter((c) => c === 409)).toHaveLength(49);
      for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().details.currentStatus).toBe('EXPIRED');
      await drain();
      const body = await txn(id);
      expect(body.status).toBe('EXPIRED');
      expect(body.operations.filter((o: { kind: string; status: string }) => o.kind === 'AUTHORIZATION_EXPIRY')).toEqual([
        expect.objectContaining({ status: 'LANDED', issuerTransactionToken: results.find((r) => r.statusCode === 202)!.json().issuerTransactionToken }),
      ]);
      expect((await events(id)).filter((e) => e.type === 'CARD_TRANSACTION.EXPIRED')).toHaveLength(1);
    });

    it('the worker re-checks: an operation that no longer applies is recorded REJECTED and changes nothing', async () => {
      const { id } = await authorize(700);
      await drain();
      await step('authorization_expiry', id);
      // A second expiry accepted against stale state (as by a process that checked before the first was recorded).
      await t.services.store.transaction(async (uow) => {
        const row = await uow.db.selectFrom('card_transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        await t.services.cardSimulations.enqueue(uow, row, { kind: 'AUTHORIZATION_EXPIRY', amount: null }, 'itt_stale', Date.now());
      });
      await drain();
      const ops = await operationsOf(t.services.store.db, [id]);
      expect(ops.map((o) => [o.kind, o.status])).toEqual([
        ['AUTHORIZATION', 'LANDED'],
        ['AUTHORIZATION_EXPIRY', 'LANDED'],
        ['AUTHORIZATION_EXPIRY', 'REJECTED'],
      ]);
      expect(ops[2]!.reason).toContain('EXPIRED');
      const body = await txn(id);
      expect(body.status).toBe('EXPIRED');
      expect(body.operations[2]).toMatchObject({ status: 'REJECTED', issuerTransactionToken: 'itt_stale', reason: expect.stringContaining('EXPIRED') });
      expect((await events(id)).map((e) => e.type)).toEqual(['CARD_TRANSACTION.AUTHORIZED', 'CARD_TRANSACTION.EXPIRED']);
    });
  });

  describe('GET /transactions?cardId=', () => {
    it('lists only landed transactions of the card, paginated', async () => {
      const card = (await activeFundedCard(t)).cardId;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await authorize(100 + i, card)).id);
        await drain();
      }
      await authorize(999, card);
      const q = `/transactions?cardId=${encodeURIComponent(card)}&limit=2`;
      const first = (await t.caller.req('GET', q)).json();
      expect(first).toMatchObject({ hasMore: true, totalCount: 3 });
      const second = (await t.caller.req('GET', `${q}&cursor=${first.nextCursor}`)).json();
      expect([...first.data, ...second.data].map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
      expect(second.data[0].operations).toHaveLength(1);
      expect((await t.caller.req('GET', `/transactions?cardId=${encodeURIComponent(otherCardId)}&cursor=${first.nextCursor}`)).statusCode).toBe(400);
      await drain();
    });
  });
});
