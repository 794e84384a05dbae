import { Ajv } from 'ajv';
import { expect, it, vi } from 'vitest';
import { BeneficialOwnerService } from '../../src/domain/customers/beneficial-owners.js';
import { OwnerPageReader } from '../../src/store/owners-repo.js';
import { pageSchema } from '../../src/schemas/common.js';
import { BeneficialOwnerSchema } from '../../src/schemas/beneficial-owners.js';
import { insertTestCustomer } from '../helpers/fixtures.js';
import { createBusiness, createOwner, fieldErrors, ownerInput } from '../helpers/owners.js';
import { OWNER_PAGE_READ, recordReads } from '../helpers/store-reads.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

interface Owner {
  id: string;
  createdAt: string;
}
interface OwnerPage {
  data: Owner[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

// The list is sent as pre-rendered text, so check it against the schema the OpenAPI document shows.
const checkPage = new Ajv({ strict: false, validateFormats: false }).compile(pageSchema(BeneficialOwnerSchema, 'page'));

async function page(caller: Caller, query: string): Promise<OwnerPage> {
  const res = await caller.req('GET', `/beneficial-owners?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json<OwnerPage>();
  expect(checkPage(body), JSON.stringify(checkPage.errors)).toBe(true);
  if (!body.hasMore) expect('nextCursor' in body).toBe(false);
  else expect(body.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  return body;
}

const byPosition = (a: Owner, b: Owner) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1);

describeEachEngine('list beneficial owners', (t) => {
  it('walks 1,000 owners with random limits while others are inserted, each existing owner exactly once and in order', async () => {
    const customerId = await createBusiness(t.caller);
    const input = ownerInput(customerId);
    const created: Owner[] = [];
    for (let i = 0; i < 1000; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => t.services.beneficialOwners.create(t.caller.platformId, input)));
      created.push(...batch.map((json) => JSON.parse(json) as Owner));
    }
    // Concurrent creations are placed in the order they commit, which their answers' (createdAt, id) tell.
    const existing = created.sort(byPosition).map((o) => o.id);
    let inserting = true;
    let inserted = 0;
    const writer = (async () => {
      while (inserting) {
        await createOwner(t.caller, customerId, inserted);
        inserted++;
      }
    })();

    const seen: Owner[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const limit = 1 + Math.floor(Math.random() * 100);
      const p = await page(t.caller, `customerId=${customerId}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(p.data.length).toBeLessThanOrEqual(limit);
      if (p.hasMore) expect(p.data.length).toBe(limit);
      expect(p.totalCount).toBeGreaterThanOrEqual(1000);
      seen.push(...p.data);
      cursor = p.nextCursor;
      pages++;
      if (seen.length >= 1000) inserting = false;
    } while (cursor);
    inserting = false;
    await writer;

    expect(pages).toBeGreaterThan(10);
    expect(inserted).toBeGreaterThan(0);
    const ids = seen.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...seen].sort(byPosition)).toEqual(seen);
    const position = new Map(ids.map((id, i) => [id, i]));
    const positions = existing.map((id) => position.get(id));
    expect(positions.every((p) => p !== undefined)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a! - b!));
    expect(ids.slice(0, 1000)).toEqual(existing);
    const final = await page(t.caller, `customerId=${customerId}&limit=1`);
    expect(final.totalCount).toBe(1000 + inserted);
  });

  it('keeps totalCount equal to the number of owners after each insert, on every page', async () => {
    const customerId = await createBusiness(t.caller);
    expect(await page(t.caller, `customerId=${customerId}`)).toEqual({ data: [], hasMore: false, totalCount: 0 });
    const created: Owner[] = [];
    for (let i = 1; i <= 5; i++) {
      created.push(await createOwner(t.caller, customerId, i));
      expect((await page(t.caller, `customerId=${customerId}&limit=2`)).totalCount).toBe(i);
    }
    const first = await page(t.caller, `customerId=${customerId}&limit=2`);
    const second = await page(t.caller, `customerId=${customerId}&limit=2&cursor=${first.nextCursor!}`);
    const third = await page(t.caller, `customerId=${customerId}&limit=2&cursor=${second.nextCursor!}`);
    expect([first, second, third].map((p) => [p.data.length, p.hasMore, p.totalCount])).toEqual([
      [2, true, 5],
      [2, true, 5],
      [1, false, 5],
    ]);
    expect([...first.data, ...second.data, ...third.data].map((o) => o.id)).toEqual(created.map((o) => o.id));
    const exact = await page(t.caller, `customerId=${customerId}&limit=5`);
    expect([exact.data.length, exact.hasMore]).toEqual([5, false]);
    // Another customer's owners never show up nor count.
    const other = await createBusiness(t.caller, 2);
    await createOwner(t.caller, other);
    expect((await page(t.caller, `customerId=${customerId}&limit=100`)).totalCount).toBe(5);
  });

  it('answers a page it answered before from what it kept, while the owners are unchanged; a write by another process (an owner added or changed) is seen at once', async () => {
    const customerId = await createBusiness(t.caller);
    for (let i = 0; i < 3; i++) await createOwner(t.caller, customerId, i);
    const query = `customerId=${customerId}&limit=2`;
    const first = await page(t.caller, query);
    const statements = recordReads(t.services.store);
    const pageReads = () => statements.count(OWNER_PAGE_READ);
    try {
      expect(await page(t.caller, query)).toEqual(first);
      expect(pageReads()).toBe(0);
      // Another process: its own service (its own kept pages) on the same database.
      const other = new BeneficialOwnerService(t.services.store, t.services.cursors, t.services.clock);
      const [owner] = first.data as (Owner & { ownershipPercentage: number })[];
      await other.update(t.caller.platformId, owner!.id, { ownershipPercentage: 7 });
      const changed = await page(t.caller, query);
      expect(pageReads()).toBe(1);
      expect((changed.data[0] as Owner & { ownershipPercentage: number }).ownershipPercentage).toBe(7);
      expect(await page(t.caller, query)).toEqual(changed);
      expect(pageReads()).toBe(1);
      await other.create(t.caller.platformId, ownerInput(customerId, 9));
      expect((await page(t.caller, query)).totalCount).toBe(4);
      expect(pageReads()).toBe(2);
    } finally {
      statements.restore();
    }
  });

  it('reads the pages asked for together in one statement on PostgreSQL, each as if read alone', async () => {
    const a = await createBusiness(t.caller);
    const b = await createBusiness(t.caller, 2);
    for (let i = 0; i < 3; i++) await createOwner(t.caller, a, i);
    await createOwner(t.caller, b, 5);
    const alone = [(await page(t.caller, `customerId=${a}&limit=2`)).data, (await page(t.caller, `customerId=${b}&limit=2`)).data];
    const reader = new OwnerPageReader(t.services.store);
    const tokenId = t.caller.tokenId;
    const reads = vi.spyOn(t.services.store, 'read');
    try {
      const asked = [
        reader.read({ tokenId, platformId: t.caller.platformId, customerId: a, afterCreatedAt: -1, afterId: '', limit: 2 }),
        reader.read({ tokenId, platformId: t.caller.platformId, customerId: b, afterCreatedAt: -1, afterId: '', limit: 2 }),
        reader.read({ tokenId, platformId: 'Platform:other', customerId: a, afterCreatedAt: -1, afterId: '', limit: 2 }),
      ];
      const [pa, pb, foreign] = await Promise.all(asked);
      expect(reads).toHaveBeenCalledTimes(t.engine === 'postgres' ? 1 : 3);
      const owners = (r: typeof pa) => JSON.parse(`[${r!.page.ownersJson.toString()}]`) as Owner[];
      expect([owners(pa), owners(pb)]).toEqual(alone);
      expect([pa!.tokenLive, pa!.page.ownerCount, pb!.page.ownerCount]).toEqual([true, 3, 1]);
      // a has 3 owners and the page 2: the page's last owner is kept for the cursor.
      expect(JSON.parse(pa!.page.lastOwnerJson!.toString())).toEqual(alone[0]![1]);
      expect(pb!.page.lastOwnerJson).toBeUndefined();
      expect(foreign).toBeUndefined();
    } finally {
      reads.mockRestore();
    }
  });

  it('applies limit 20 by default and accepts 1 and 100', async () => {
    const customerId = await createBusiness(t.caller);
    await Promise.all(Array.from({ length: 101 }, (_, i) => t.services.beneficialOwners.create(t.caller.platformId, ownerInput(customerId, i))));
    expect((await page(t.caller, `customerId=${customerId}`)).data).toHaveLength(20);
    expect((await page(t.caller, `customerId=${customerId}&limit=1`)).data).toHaveLength(1);
    const hundred = await page(t.caller, `customerId=${customerId}&limit=100`);
    expect([hundred.data.length, hundred.hasMore, hundred.totalCount]).toEqual([100, true, 101]);
  });

  it('refuses limits out of bounds, a missing customerId and unknown parameters', async () => {
    const customerId = await createBusiness(t.caller);
    for (const limit of ['0', '101', '-1', '1.5', 'ten', '']) {
      const errors = fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${customerId}&limit=${limit}`));
      expect([...errors.keys()], `limit=${limit}`).toEqual(['limit']);
    }
    expect([...fieldErrors(await t.caller.req('GET', '/beneficial-owners?limit=5')).keys()]).toEqual(['customerId']);
    const both = fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${customerId}&limit=500&sort=desc`));
    expect([...both.keys()].sort()).toEqual(['limit', 'sort']);
  });

  it('refuses an unknown, individual or foreign customerId with a 400 on customerId', async () => {
    const individual = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const foreign = await createBusiness(await t.newCaller());
    for (const id of ['Customer:0190ffff-0000-7000-8000-000000000000', individual, foreign, 'nonsense']) {
      const errors = fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${encodeURIComponent(id)}`));
      expect([...errors.keys()]).toEqual(['customerId']);
    }
  });

  it('refuses every tampered, truncated, forged or misplaced cursor with a 400 on cursor', async () => {
    const customerId = await createBusiness(t.caller);
    const sibling = await createBusiness(t.caller, 2);
    for (let i = 0; i < 3; i++) {
      await createOwner(t.caller, customerId, i);
      await createOwner(t.caller, sibling, i);
    }
    const { nextCursor } = await page(t.caller, `customerId=${customerId}&limit=1`);
    const good = nextCursor!;
    const siblingCursor = (await page(t.caller, `customerId=${sibling}&limit=1`)).nextCursor!;
    const raw = Buffer.from(good, 'base64url');
    const flipped = Buffer.from(raw);
    flipped[flipped.length - 1] = flipped[flipped.length - 1]! ^ 1;
    const macFlipped = Buffer.from(raw);
    macFlipped[0] = macFlipped[0]! ^ 0x80;
    const forgedPayload = Buffer.concat([raw.subarray(0, 16), Buffer.from(`0.${'BeneficialOwner:0'}`)]);
    // A genuine cursor of another list (tokens), signed with the same key: two tokens make a second page.
    expect((await t.caller.req('POST', '/tokens', { name: 'second', permissions: ['VIEW'] })).statusCode).toBe(201);
    const tokensCursor = (await t.caller.req('GET', '/tokens?limit=1')).json<{ nextCursor?: string }>().nextCursor;
    expect(tokensCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect((await t.caller.req('GET', `/tokens?limit=1&cursor=${tokensCursor}`)).statusCode).toBe(200);
    const cases: Record<string, string> = {
      'payload bit flipped': flipped.toString('base64url'),
      'mac bit flipped': macFlipped.toString('base64url'),
      truncated: good.slice(0, -4),
      'mac only': good.slice(0, 20),
      'forged position': forgedPayload.toString('base64url'),
      'another customer': siblingCursor,
      'not base64url': `${good.slice(0, 10)}$%2F${good.slice(10)}`,
      'padded with garbage': `${good}AAAA`,
      'another list': tokensCursor!,
    };
    for (const [name, cursor] of Object.entries(cases)) {
      const errors = fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${customerId}&cursor=${cursor}`));
      expect([...errors.keys()], name).toEqual(['cursor']);
    }
    expect([...fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${customerId}&cursor=`)).keys()]).toEqual(['cursor']);
    // The genuine cursor still works, with any limit.
    expect((await page(t.caller, `customerId=${customerId}&limit=7&cursor=${good}`)).data).toHaveLength(2);
  });

  it('isolates platforms: a foreign customer, owner and cursor all look unknown', async () => {
    const other = await t.newCaller();
    const theirCustomer = await createBusiness(other);
    const theirOwners = [await createOwner(other, theirCustomer, 1), await createOwner(other, theirCustomer, 2)];
    const theirCursor = (await page(other, `customerId=${theirCustomer}&limit=1`)).nextCursor!;
    const mine = await createBusiness(t.caller);
    await createOwner(t.caller, mine);
    await createOwner(t.caller, mine, 2);

    const unknownCustomer = fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=Customer:0190ffff-0000-7000-8000-000000000000`));
    const foreignCustomer = fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${theirCustomer}`));
    expect(foreignCustomer).toEqual(unknownCustomer);
    const foreignOwner = await t.caller.req('GET', `/beneficial-owners/${theirOwners[0]!.id}`);
    const unknownOwner = await t.caller.req('GET', '/beneficial-owners/BeneficialOwner:0190ffff-0000-7000-8000-000000000000');
    expect([foreignOwner.statusCode, unknownOwner.statusCode]).toEqual([404, 404]);
    expect([...fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${mine}&cursor=${theirCursor}`)).keys()]).toEqual(['cursor']);
    expect([...fieldErrors(await t.caller.req('GET', `/beneficial-owners?customerId=${theirCustomer}&cursor=${theirCursor}`)).keys()]).toEqual(['customerId', 'cursor']);
    expect((await page(other, `customerId=${theirCustomer}&cursor=${theirCursor}`)).data.map((o) => o.id)).toEqual([theirOwners[1]!.id]);
  });
});
