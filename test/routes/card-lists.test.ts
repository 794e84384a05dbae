import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { CardSchema } from '../../src/schemas/cards.js';
import { pageSchema } from '../../src/schemas/common.js';
import { CardTransactionSchema } from '../../src/schemas/transactions.js';
import { insertAccountIfAbsent } from '../../src/store/accounts-repo.js';
import { drainCardJobs, provisionCards } from '../helpers/card-jobs.js';
import { injectCall, insertTestCustomer, usdAccountOf } from '../helpers/fixtures.js';
import { activeFundedCard, AMPLE_FUNDS } from '../helpers/money.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

const ajv = new Ajv({ strict: false, validateFormats: false });
const checkCards = ajv.compile(pageSchema(CardSchema, 'cards'));
const checkTransactions = ajv.compile(pageSchema(CardTransactionSchema, 'transactions'));

interface Item {
  id: string;
  createdAt: string;
}

/** Every row of a list, following nextCursor page by page; fails on a skip or duplicate via the caller's comparison. */
async function walk(caller: Caller, path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await caller.req('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json();
    const check = path.startsWith('/cards') ? checkCards : checkTransactions;
    expect(check(page), JSON.stringify(check.errors)).toBe(true);
    ids.push(...page.data.map((x: Item) => x.id));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { ids, pages };
}

/** (createdAt, id) order, as the lists sort. */
const byPosition = (a: Item, b: Item) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1);

describeEachEngine('card and transaction lists as the Grid document has them', (t) => {
  let c: Caller;
  let holderA: string;
  let holderB: string;
  const q = encodeURIComponent;
  const ids = async (path: string) => {
    const res = await c.req('GET', path);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().data as Item[]).map((x) => x.id);
  };

  beforeAll(async () => {
    c = await t.newCaller();
    holderA = await insertTestCustomer(t, c, 'BUSINESS', 'APPROVED');
    holderB = await insertTestCustomer(t, c, 'INDIVIDUAL', 'APPROVED');
  });

  /** Another USD internal account of the holder, with an id of the test's choosing (the document's example, or ids that contain one another). */
  const account = async (id: string, holder: string, type: string) => {
    const now = Date.now();
    await t.services.store.transaction((uow) => insertAccountIfAbsent(uow, { id, platform_id: c.platformId, customer_id: holder, type, status: 'ACTIVE', currency: 'USD', available_balance: 0, total_balance: 0, created_at: now, updated_at: now }));
    return id;
  };

  describe('GET /cards', () => {
    let cards: (Item & { cardholderId: string; platformCardId: string; fundingSources: string[]; state: string })[];
    let fundingIds: { a: string; b: string };

    beforeAll(async () => {
      const aUsd = await usdAccountOf(injectCall(c), holderA);
      const bUsd = await usdAccountOf(injectCall(c), holderB);
      const documented = await account(`InternalAccount:${c.platformId.slice(-12)}-example`, holderA, 'INTERNAL_CRYPTO');
      const a = await account(`InternalAccount:${c.platformId.slice(-12)}-a`, holderA, 'EMBEDDED_WALLET');
      const b = await account(`InternalAccount:${c.platformId.slice(-12)}-b`, holderB, 'EMBEDDED_WALLET');
      const containsA = await account(`x"${a}`, holderB, 'INTERNAL_CRYPTO');
      fundingIds = { a, b };
      const bodies = [
        // The document's example request, with ids of this platform.
        { cardholderId: holderA, platformCardId: 'card-emp-aary-001', form: 'VIRTUAL', fundingSources: [documented] },
        { cardholderId: holderA, form: 'VIRTUAL', fundingSources: [a, aUsd] },
        { cardholderId: holderB, form: 'VIRTUAL', fundingSources: [b] },
        { cardholderId: holderB, form: 'VIRTUAL', fundingSources: [containsA] },
        { cardholderId: holderA, form: 'VIRTUAL', fundingSources: [aUsd] },
        { cardholderId: holderB, form: 'VIRTUAL', threeDSecurePassword: 'AbCd1234EfGh5678', fundingSources: [b, bUsd] },
        { cardholderId: holderA, form: 'VIRTUAL', fundingSources: [aUsd] },
      ];
      cards = [];
      for (const body of bodies) {
        const res = await c.req('POST', '/cards', body);
        expect(res.statusCode, res.body).toBe(201);
        cards.push(res.json());
      }
      await provisionCards(t.services, t.app.log);
      // The sandbox guide's issuance suffix 001 (the document's example platformCardId) keeps a card PROCESSING.
      for (const card of cards) card.state = card.platformCardId.endsWith('001') ? 'PROCESSING' : 'ACTIVE';
    });

    it('accepts threeDSecurePassword and keeps nothing of it', async () => {
      const withPassword = cards[5]!;
      expect(withPassword).not.toHaveProperty('threeDSecurePassword');
      expect(JSON.stringify((await c.req('GET', `/cards/${withPassword.id}`)).json())).not.toContain('AbCd1234EfGh5678');
      const row = await t.services.store.db.selectFrom('cards').selectAll().where('id', '=', withPassword.id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain('AbCd1234EfGh5678');
      const bad = await c.req('POST', '/cards', { cardholderId: holderA, form: 'VIRTUAL', fundingSources: [fundingIds.a], threeDSecurePassword: '' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details.errors[0].field).toBe('threeDSecurePassword');
    });

    it('lists newest first by default, oldest first with sortOrder=asc', async () => {
      const sorted = [...cards].sort(byPosition).map((x) => x.id);
      expect(await ids('/cards?limit=100')).toEqual([...sorted].reverse());
      expect(await ids('/cards?limit=100&sortOrder=desc')).toEqual([...sorted].reverse());
      expect(await ids('/cards?limit=100&sortOrder=asc')).toEqual(sorted);
    });

    it('pages through several pages in both orders with no skip and no duplicate', async () => {
      const sorted = [...cards].sort(byPosition).map((x) => x.id);
      const asc = await walk(c, '/cards?sortOrder=asc', 2);
      expect(asc).toEqual({ ids: sorted, pages: 4 });
      const desc = await walk(c, '/cards?sortOrder=desc', 3);
      expect(desc).toEqual({ ids: [...sorted].reverse(), pages: 3 });
      expect((await walk(c, '/cards', 3)).ids).toEqual([...sorted].reverse());
    });

    it('filters by cardholderId, accountId, platformCardId and state, together too', async () => {
      const of = (pred: (x: (typeof cards)[number]) => boolean) => cards.filter(pred).sort(byPosition).reverse().map((x) => x.id);
      expect(await ids(`/cards?cardholderId=${q(holderA)}`)).toEqual(of((x) => x.cardholderId === holderA));
      expect(await ids(`/cards?accountId=${q(fundingIds.b)}`)).toEqual(of((x) => x.fundingSources.includes(fundingIds.b)));
      // A whole element, never a substring of another id.
      expect(await ids(`/cards?accountId=${q(fundingIds.a)}`)).toEqual([cards[1]!.id]);
      expect(await ids(`/cards?accountId=${q(fundingIds.b)}&cardholderId=${q(holderB)}`)).toEqual(of((x) => x.cardholderId === holderB && x.fundingSources.includes(fundingIds.b)));
      expect(await ids(`/cards?platformCardId=card-emp-aary-001`)).toEqual([cards[0]!.id]);
      expect(await ids(`/cards?platformCardId=${q(cards[4]!.platformCardId)}`)).toEqual([cards[4]!.id]);
      expect(await ids('/cards?state=ACTIVE&limit=100')).toEqual(of((x) => x.state === 'ACTIVE'));
      expect(await ids('/cards?state=PROCESSING')).toEqual([cards[0]!.id]);
      expect(await ids('/cards?state=FROZEN')).toEqual([]);
      const page = (await c.req('GET', `/cards?cardholderId=${q(holderA)}&limit=1`)).json();
      expect(page).toMatchObject({ hasMore: true, totalCount: 4 });
      // Another platform sees none of them.
      expect((await t.caller.req('GET', '/cards?platformCardId=card-emp-aary-001')).json()).toMatchObject({ data: [], totalCount: 0 });
    });

    it('refuses a cursor used with another sort order or filter set, and unknown or invalid parameters', async () => {
      const first = (await c.req('GET', '/cards?limit=2&sortOrder=asc')).json();
      expect((await c.req('GET', `/cards?limit=2&sortOrder=asc&cursor=${first.nextCursor}`)).statusCode).toBe(200);
      for (const query of [`sortOrder=desc`, '', `state=ACTIVE&sortOrder=asc`, `sortOrder=asc&cardholderId=${q(holderA)}`]) {
        const res = await c.req('GET', `/cards?limit=2&${query}&cursor=${first.nextCursor}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().details.errors, query).toEqual([expect.objectContaining({ field: 'cursor' })]);
      }
      const bad = await c.req('GET', '/cards?sortOrder=newest&state=LOST&color=red');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['color', 'sortOrder', 'state']);
    });
  });

  describe('GET /transactions', () => {
    let card1: string;
    let card2: string;
    let txns: (Item & { cardId: string; customerId: string; platformCustomerId: string; status: string })[];
    let pending: string;

    const authorize = async (card: string, body: object = {}) => {
      const res = await c.req('POST', `/sandbox/cards/${card}/simulate/authorization`, { amount: 1000, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF' }, ...body });
      expect(res.statusCode, res.body).toBe(202);
      return res.json().cardTransactionId as string;
    };

    beforeAll(async () => {
      card1 = (await activeFundedCard(t, c, AMPLE_FUNDS, holderA)).cardId;
      card2 = (await activeFundedCard(t, c, AMPLE_FUNDS, holderB)).cardId;
      // The document's example authorization, and its currency object in full.
      await authorize(card1, { amount: 1250, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE COFFEE SF', mcc: '5814', country: 'US' } });
      await drainCardJobs(t.services, t.app.log);
      await authorize(card1, { currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } });
      await drainCardJobs(t.services, t.app.log);
      for (let i = 0; i < 4; i++) {
        const id = await authorize(i % 2 ? card1 : card2);
        if (i === 1) await c.req('POST', `/sandbox/cards/${card1}/simulate/clearing`, { cardTransactionId: id, amount: 1000 });
        if (i === 2) await c.req('POST', `/sandbox/cards/${card2}/simulate/authorization_expiry`, { cardTransactionId: id });
        await drainCardJobs(t.services, t.app.log);
      }
      // Accepted, never landed: invisible (its internal status is PENDING).
      pending = await authorize(card2);
      txns = (await c.req('GET', '/transactions?limit=100')).json().data;
    });

    it('refuses a currency whose decimals differ from the card currency\'s', async () => {
      const res = await c.req('POST', `/sandbox/cards/${card1}/simulate/authorization`, { amount: 1, currency: { code: 'USD', decimals: 0 }, merchant: { descriptor: 'X' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.errors).toEqual([expect.objectContaining({ field: 'currency.decimals' })]);
    });

    it('returns every landed transaction with the required fields, platformCustomerId included', async () => {
      expect(txns).toHaveLength(6);
      expect(txns.map((x) => x.id)).not.toContain(pending);
      const customers = new Map<string, string>();
      for (const holder of [holderA, holderB]) {
        const row = await t.services.store.db.selectFrom('customers').select('platform_customer_id').where('id', '=', holder).executeTakeFirstOrThrow();
        customers.set(holder, row.platform_customer_id);
      }
      for (const x of txns) expect(x.platformCustomerId).toBe(customers.get(x.customerId));
      const one = (await c.req('GET', `/transactions/${txns[0]!.id}`)).json();
      expect(ajv.validate(CardTransactionSchema, one), JSON.stringify(ajv.errors)).toBe(true);
      expect(one.authorizedAmount.currency).toEqual({ code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 });
    });

    it('lists newest first by default and pages both ways with no skip and no duplicate', async () => {
      const sorted = [...txns].sort(byPosition).map((x) => x.id);
      expect(txns.map((x) => x.id)).toEqual([...sorted].reverse());
      expect(await walk(c, '/transactions?sortOrder=asc', 2)).toEqual({ ids: sorted, pages: 3 });
      expect(await walk(c, '/transactions?sortOrder=desc', 4)).toEqual({ ids: [...sorted].reverse(), pages: 2 });
      expect(await walk(c, `/transactions?sortOrder=asc&cardId=${q(card1)}`, 1)).toEqual({ ids: sorted.filter((id) => txns.find((x) => x.id === id)!.cardId === card1), pages: 4 });
    });

    it('filters by cardId, customerId, platformCustomerId, status, type and the date range', async () => {
      const of = (pred: (x: (typeof txns)[number]) => boolean) => txns.filter(pred).map((x) => x.id);
      const pcid = txns.find((x) => x.customerId === holderB)!.platformCustomerId;
      expect(await ids(`/transactions?cardId=${q(card2)}`)).toEqual(of((x) => x.cardId === card2));
      expect(await ids(`/transactions?customerId=${q(holderA)}`)).toEqual(of((x) => x.customerId === holderA));
      expect(await ids(`/transactions?platformCustomerId=${q(pcid)}`)).toEqual(of((x) => x.customerId === holderB));
      expect(await ids(`/transactions?customerId=${q(holderA)}&platformCustomerId=${q(pcid)}`)).toEqual([]);
      expect(await ids('/transactions?status=SETTLED')).toEqual(of((x) => x.status === 'SETTLED'));
      expect(await ids('/transactions?status=EXPIRED')).toEqual(of((x) => x.status === 'EXPIRED'));
      expect(await ids('/transactions?status=AUTHORIZED')).toEqual(of((x) => x.status === 'AUTHORIZED'));
      expect(of((x) => x.status === 'SETTLED')).toHaveLength(1);
      expect(of((x) => x.status === 'EXPIRED')).toHaveLength(1);
      expect(await ids('/transactions?type=CARD')).toEqual(of(() => true));
      const mid = [...txns].sort(byPosition);
      const from = mid[1]!.createdAt;
      const to = mid[3]!.createdAt;
      const inRange = of((x) => x.createdAt >= from && x.createdAt <= to);
      expect(inRange.length).toBeGreaterThanOrEqual(3);
      expect(await ids(`/transactions?startDate=${q(from)}&endDate=${q(to)}`)).toEqual(inRange);
      expect(await ids(`/transactions?startDate=${q(from)}`)).toEqual(of((x) => x.createdAt >= from));
      expect(await ids(`/transactions?endDate=${q(to)}`)).toEqual(of((x) => x.createdAt <= to));
      expect(await ids(`/transactions?customerId=${q('Customer:0190ffff-0000-7000-8000-000000000000')}`)).toEqual([]);
    });

    it('accepts the filters card transactions have no data for, and they match nothing', async () => {
      for (const query of ['type=INCOMING', 'type=OUTGOING', 'status=COMPLETED', 'status=CREATED', 'status=PENDING', 'reference=INV-1', 'accountIdentifier=x', 'senderAccountIdentifier=x', 'receiverAccountIdentifier=x']) {
        const res = await c.req('GET', `/transactions?${query}`);
        expect(res.statusCode, query).toBe(200);
        expect(res.json(), query).toEqual({ data: [], hasMore: false, totalCount: 0 });
      }
    });

    it('refuses a cursor used with another sort order or filter set, and unknown or invalid parameters', async () => {
      const first = (await c.req('GET', '/transactions?limit=2&status=AUTHORIZED')).json();
      expect(first.hasMore).toBe(true);
      expect((await c.req('GET', `/transactions?limit=2&status=AUTHORIZED&sortOrder=desc&cursor=${first.nextCursor}`)).statusCode).toBe(200);
      for (const query of ['status=AUTHORIZED&sortOrder=asc', '', 'status=SETTLED', `status=AUTHORIZED&customerId=${q(holderA)}`, 'status=AUTHORIZED&type=CARD']) {
        const res = await c.req('GET', `/transactions?limit=2&${query}&cursor=${first.nextCursor}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().details.errors, query).toEqual([expect.objectContaining({ field: 'cursor' })]);
      }
      // A leap second is a valid date-time the clock cannot hold: a 400 on its field, never a 500.
      const leap = await c.req('GET', `/transactions?endDate=${q('2016-12-31T23:59:60Z')}`);
      expect(leap.statusCode).toBe(400);
      expect(leap.json().details.errors).toEqual([expect.objectContaining({ field: 'endDate' })]);
      const bad = await c.req('GET', '/transactions?sortOrder=up&status=LOST&type=WIRE&startDate=today&cardID=x');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['cardID', 'sortOrder', 'startDate', 'status', 'type']);
    });

    it('answers 404 TRANSACTION_NOT_FOUND for an unknown, foreign or not yet landed transaction', async () => {
      const other = await t.newCaller();
      for (const [caller, id] of [
        [c, 'CardTransaction:0190ffff-0000-7000-8000-000000000000'],
        [other, txns[0]!.id],
        [c, pending],
      ] as const) {
        const res = await caller.req('GET', `/transactions/${id}`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ status: 404, code: 'TRANSACTION_NOT_FOUND' });
      }
    });
  });
});
