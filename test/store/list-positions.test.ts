import { expect, it } from 'vitest';
import { newCustomerRow } from '../../src/domain/customers/customers.js';
import { insertCustomer } from '../../src/store/customers-repo.js';
import { describeEachEngine, type Caller } from '../helpers/test-app.js';

interface Page {
  data: { id: string; createdAt: string }[];
  hasMore: boolean;
  nextCursor?: string;
}

const list = async (caller: Caller, cursor?: string): Promise<Page> => {
  const res = await caller.req('GET', `/customers?limit=1${cursor === undefined ? '' : `&cursor=${cursor}`}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Page>();
};

describeEachEngine('list positions given at commit', (t) => {
  it('a row created first but committed last comes after the cursor a client already holds', async () => {
    const caller = await t.newCaller();
    const create = async () => (await t.services.customers.create(caller.platformId, 'sandbox', { customerType: 'INDIVIDUAL' } as never)).id;
    const c0 = await create();

    // A: created first, its transaction held open while B and C are created and committed.
    const a = newCustomerRow(caller.platformId, { customerType: 'INDIVIDUAL' } as never, Date.now());
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const aInserted = new Promise<void>((r) => (inserted = r));
    const committed: string[] = [];
    const first = t.services.store.transaction(async (trx) => {
      await insertCustomer(trx, a);
      inserted();
      await held;
    }).then(() => committed.push(a.id));
    await aInserted;
    await new Promise((r) => setTimeout(r, 5));
    const later = (async () => {
      const b = await create();
      committed.push(b);
      const c = await create();
      committed.push(c);
      return [b, c] as const;
    })();

    if (t.engine === 'postgres') {
      // PostgreSQL commits B and C while A is open: a client pages past B meanwhile.
      const [b, c] = await later;
      const p1 = await list(caller);
      expect(p1.data.map((r) => r.id)).toEqual([c0]);
      const p2 = await list(caller, p1.nextCursor);
      expect(p2.data.map((r) => r.id)).toEqual([b]);
      expect(p2.hasMore).toBe(true);
      release();
      await first;
      expect(committed).toEqual([b, c, a.id]);
      // A was created before B, yet it is placed after C, so the cursor past B still leads to it.
      expect(new Date(p2.data[0]!.createdAt).getTime()).toBeGreaterThanOrEqual(a.created_at);
      const p3 = await list(caller, p2.nextCursor);
      expect(p3.data.map((r) => r.id)).toEqual([c]);
      const p4 = await list(caller, p3.nextCursor);
      expect(p4.data.map((r) => r.id)).toEqual([a.id]);
      expect(p4.hasMore).toBe(false);
    } else {
      // SQLite has one writer: B and C wait for A's commit (the order they commit in shows it), and are placed after it.
      release();
      const [b, c] = await later;
      await first;
      expect(committed).toEqual([a.id, b, c]);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const p = await list(caller, cursor);
        seen.push(...p.data.map((r) => r.id));
        cursor = p.nextCursor;
      } while (cursor);
      expect(seen).toEqual([c0, a.id, b, c]);
    }
  });

  it('a rolled-back savepoint places nothing; a released one is placed with its unit of work', async () => {
    const caller = await t.newCaller();
    // Created a minute ago: the provisional position (the creation time) and the one taken at commit differ.
    const kept = newCustomerRow(caller.platformId, { customerType: 'INDIVIDUAL' } as never, Date.now() - 60_000);
    const dropped = newCustomerRow(caller.platformId, { customerType: 'INDIVIDUAL' } as never, Date.now() - 60_000);
    let before = 0;
    await t.services.store.transaction(async (uow) => {
      await uow.savepoint((sp) => insertCustomer(sp, kept));
      await expect(
        uow.savepoint(async (sp) => {
          await insertCustomer(sp, dropped);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      before = Date.now();
    });
    const rows = await t.services.store.db.selectFrom('customers').select(['id', 'list_position']).where('platform_id', '=', caller.platformId).execute();
    // The kept row got the position taken at commit, not its creation time.
    expect(rows.map((r) => r.id)).toEqual([kept.id]);
    expect(Number(rows[0]!.list_position)).toBeGreaterThanOrEqual(before);
  });
});
