import { expect, it } from 'vitest';
import { BeneficialOwnerService, ownerPosition, renderOwner, type BeneficialOwner } from '../../../src/domain/customers/beneficial-owners.js';
import { ValidationError } from '../../../src/domain/shared/errors.js';
import { insertOwners } from '../../../src/store/owners-repo.js';
import { insertTestCustomer } from '../../helpers/fixtures.js';
import { describeEachEngine } from '../../helpers/test-app.js';

const owner = (id: string, customerId: string, createdAt: number): BeneficialOwner => ({
  id,
  customerId,
  roles: ['UBO'],
  ownershipPercentage: 10,
  personalInfo: {
    firstName: 'A',
    lastName: 'B',
    birthDate: '1970-01-01',
    nationality: 'US',
    address: { line1: 'x', postalCode: '1', country: 'US' },
    idType: 'SSN',
    identifier: '1',
  },
  kycStatus: 'UNVERIFIED',
  createdAt: new Date(createdAt).toISOString(),
  updatedAt: new Date(createdAt).toISOString(),
});

it('renders an owner with the schema field order and without absent optionals', () => {
  const json = renderOwner({ ...owner('BeneficialOwner:1', 'Customer:1', 0), personalInfo: { ...owner('', '', 0).personalInfo, middleName: undefined } as never });
  expect(Object.keys(JSON.parse(json) as object)).toEqual(['id', 'customerId', 'roles', 'ownershipPercentage', 'personalInfo', 'kycStatus', 'createdAt', 'updatedAt']);
  expect(json).not.toContain('middleName');
});

it('reads the page position off rendered JSON exactly as parsing it would, whatever the strings hold', () => {
  const tricky = ['"createdAt":"2999-01-01T00:00:00.000Z"', '\\"createdAt\\":\\"', 'Zoë "the" Ørsted \u2028', '}{"id":"x"'];
  for (const [i, text] of tricky.entries()) {
    const base = owner(`BeneficialOwner:0195${i}`, 'Customer:"c"', 1_700_000_000_123 + i);
    const json = renderOwner({
      ...base,
      personalInfo: { ...base.personalInfo, firstName: text, middleName: text, address: { ...base.personalInfo.address, line1: text, city: text } },
    });
    const parsed = JSON.parse(json) as { id: string; createdAt: string };
    expect(ownerPosition(Buffer.from(json))).toEqual({ createdAt: Date.parse(parsed.createdAt), id: parsed.id });
  }
  expect(() => ownerPosition(Buffer.from('{"customerId":"x"}'))).toThrow();
  expect(() => ownerPosition(Buffer.from('{"id":"x"}'))).toThrow();
});

describeEachEngine('beneficial owner pages', (t) => {
  it('orders by creation time, then id, whatever the insertion order, and counts from owner_count', async () => {
    const customerId = await insertTestCustomer(t, t.caller);
    const { platformId } = t.caller;
    // Inserted out of order, with ties on created_at that the id must break.
    const spec: [string, number][] = [
      ['BeneficialOwner:c', 2000],
      ['BeneficialOwner:a', 3000],
      ['BeneficialOwner:b', 2000],
      ['BeneficialOwner:d', 1000],
      ['BeneficialOwner:e', 3000],
    ];
    await insertOwners(
      t.services.store.db,
      spec.map(([id, at]) => ({ customer_id: customerId, created_at: at, id, platform_id: platformId, updated_at: at, body: renderOwner(owner(id, customerId, at)) })),
    );
    await t.services.store.db.updateTable('customers').set({ owner_count: 5 }).where('id', '=', customerId).execute();

    const ids: string[] = [];
    let cursor: string | undefined;
    const shapes: [number, boolean][] = [];
    do {
      const page = await t.services.beneficialOwners.list(t.caller.tokenId, platformId, customerId, 2, cursor);
      const data = JSON.parse(`[${page.ownersJson}]`) as { id: string }[];
      ids.push(...data.map((o) => o.id));
      shapes.push([data.length, page.hasMore]);
      expect(page.totalCount).toBe(5);
      expect(page.nextCursor === undefined).toBe(!page.hasMore);
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(['BeneficialOwner:d', 'BeneficialOwner:b', 'BeneficialOwner:c', 'BeneficialOwner:a', 'BeneficialOwner:e']);
    expect(shapes).toEqual([
      [2, true],
      [2, true],
      [1, false],
    ]);
  });

  it('cuts the page after the last owner even when names hold separators and JSON', async () => {
    const customerId = await insertTestCustomer(t, t.caller);
    const hostile = owner('', customerId, 0).personalInfo;
    const input = { customerId, roles: ['UBO' as const], ownershipPercentage: 1, personalInfo: { ...hostile, firstName: 'Eve,\n{"id":"BeneficialOwner:x"},\n', lastName: '\u2028 \ud83d\ude00' } };
    const created = [];
    for (let i = 0; i < 3; i++) created.push(JSON.parse(await t.services.beneficialOwners.create(t.caller.platformId, input)) as { id: string });
    const first = await t.services.beneficialOwners.list(t.caller.tokenId, t.caller.platformId, customerId, 2, undefined);
    const data = JSON.parse(`[${first.ownersJson}]`) as { id: string; personalInfo: { firstName: string; lastName: string } }[];
    expect(data.map((o) => o.id)).toEqual(created.slice(0, 2).map((o) => o.id));
    expect(data[1]!.personalInfo).toMatchObject({ firstName: input.personalInfo.firstName, lastName: input.personalInfo.lastName });
    const rest = await t.services.beneficialOwners.list(t.caller.tokenId, t.caller.platformId, customerId, 2, first.nextCursor);
    expect((JSON.parse(`[${rest.ownersJson}]`) as { id: string }[]).map((o) => o.id)).toEqual([created[2]!.id]);
  });

  it('keeps answered pages up to OWNER_PAGE_CACHE_BYTES, the least recently used dropped first; 0 keeps none', async () => {
    const { platformId, tokenId } = t.caller;
    // One owner each, the same but for ids of the same length: pages of the same size.
    const customers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const customerId = await insertTestCustomer(t, t.caller);
      await t.services.beneficialOwners.create(platformId, { customerId, roles: ['UBO'], ownershipPercentage: 10, personalInfo: owner('', customerId, 0).personalInfo });
      customers.push(customerId);
    }
    const [a, b, c] = customers as [string, string, string];
    const withBytes = (bytes: number) => new BeneficialOwnerService(t.services.store, t.services.cursors, t.services.clock, bytes);
    const list = (service: BeneficialOwnerService, customerId: string) => service.list(tokenId, platformId, customerId, 20, undefined);
    // A kept page is answered as the very object kept; a page read anew is another, equal one.
    const pageBytes = (await list(withBytes(0), a)).ownersJson.length + 256;

    const none = withBytes(0);
    const first = await list(none, a);
    expect(await list(none, a)).not.toBe(first);
    expect(await list(none, a)).toEqual(first);

    const smallerThanAPage = withBytes(pageBytes - 1);
    const big = await list(smallerThanAPage, a);
    expect(await list(smallerThanAPage, a)).not.toBe(big);

    const twoPages = withBytes(Math.floor(pageBytes * 2.5));
    const pa = await list(twoPages, a);
    const pb = await list(twoPages, b);
    expect(await list(twoPages, a)).toBe(pa); // a is now the most recently used
    const pc = await list(twoPages, c); // past the bound: b goes
    expect(await list(twoPages, a)).toBe(pa);
    expect(await list(twoPages, c)).toBe(pc);
    const pbAgain = await list(twoPages, b);
    expect(pbAgain).not.toBe(pb);
    expect(pbAgain).toEqual(pb);
  });

  it('reports a bad cursor and a bad customer together', async () => {
    const individual = await insertTestCustomer(t, t.caller, 'INDIVIDUAL');
    const err = await t.services.beneficialOwners.list(t.caller.tokenId, t.caller.platformId, individual, 20, 'AAAA').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors.map((e) => e.field)).toEqual(['customerId', 'cursor']);
  });
});
