import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/test-app.js';

describeEachEngine('API tokens', (t) => {
  it('creates a token whose secret appears only in the create response', async () => {
    const res = await t.caller.req('POST', '/tokens', { name: 'reporting', permissions: ['VIEW'] });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ name: 'reporting', permissions: ['VIEW'], environment: 'sandbox' });
    expect(created.id).toMatch(/^Token:[0-9a-f-]{36}$/);
    expect(created.clientId).toBe(created.id.slice(6).replace(/-/g, ''));
    expect(created.clientSecret.length).toBeGreaterThanOrEqual(43);
    const read = (await t.caller.req('GET', `/tokens/${created.id}`)).json();
    expect(read).toEqual({ ...created, clientSecret: undefined });
    expect(JSON.stringify((await t.caller.req('GET', '/tokens')).json())).not.toContain(created.clientSecret);
  });

  it('stores only a digest of the secret', async () => {
    const created = (await t.caller.req('POST', '/tokens', { name: 'digest', permissions: ['VIEW'] })).json();
    const row = await t.services.store.db.selectFrom('api_tokens').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.clientSecret);
  });

  it('lists tokens page by page with an opaque cursor and a total', async () => {
    const c = await t.newCaller();
    for (let i = 0; i < 4; i++) await c.req('POST', '/tokens', { name: `t${i}`, permissions: ['VIEW'] });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = (await c.req('GET', `/tokens?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json();
      expect(page.totalCount).toBe(5);
      if (page.hasMore) expect(page.nextCursor).toEqual(expect.any(String));
      else expect(page).not.toHaveProperty('nextCursor');
      seen.push(...page.data.map((d: { id: string }) => d.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort()).toEqual(seen);
    const named = (await c.req('GET', '/tokens?name=t2')).json();
    expect(named.data.map((d: { name: string }) => d.name)).toEqual(['t2']);
  });

  it('refuses a cursor from another platform or another filter', async () => {
    const a = await t.newCaller();
    const b = await t.newCaller();
    await a.req('POST', '/tokens', { name: 'x', permissions: ['VIEW'] });
    const page = (await a.req('GET', '/tokens?limit=1')).json();
    expect(page.hasMore).toBe(true);
    for (const [caller, query] of [
      [b, `cursor=${page.nextCursor}`],
      [a, `name=x&cursor=${page.nextCursor}`],
      [a, `cursor=${page.nextCursor.slice(0, -2)}`],
      [a, `cursor=${page.nextCursor.slice(0, -1)}${page.nextCursor.endsWith('A') ? 'B' : 'A'}`],
    ] as const) {
      const res = await caller.req('GET', `/tokens?${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().details.errors).toEqual([expect.objectContaining({ field: 'cursor' })]);
    }
  });

  it('hides another platform\'s tokens: read and delete answer 404 like an unknown id', async () => {
    const other = await t.newCaller();
    const unknown = await t.caller.req('GET', '/tokens/Token:00000000-0000-7000-8000-000000000000');
    const foreign = await t.caller.req('GET', `/tokens/${other.tokenId}`);
    expect(foreign.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, code: 'TOKEN_NOT_FOUND' });
    expect(foreign.json().code).toBe(unknown.json().code);
    expect((await t.caller.req('DELETE', `/tokens/${other.tokenId}`)).json()).toMatchObject({ status: 404, code: 'TOKEN_NOT_FOUND' });
    expect((await other.req('GET', '/tokens')).statusCode).toBe(200);
  });

  it('gives new tokens the environment of the token that created them', async () => {
    const prod = await t.newCaller('production');
    const created = (await prod.req('POST', '/tokens', { name: 'p', permissions: ['VIEW'] })).json();
    expect(created.environment).toBe('production');
  });

  it('deletes a token: 204, then 404', async () => {
    const created = (await t.caller.req('POST', '/tokens', { name: 'gone', permissions: ['VIEW'] })).json();
    expect((await t.caller.req('DELETE', `/tokens/${created.id}`)).statusCode).toBe(204);
    expect((await t.caller.req('GET', `/tokens/${created.id}`)).statusCode).toBe(404);
    expect((await t.caller.req('DELETE', `/tokens/${created.id}`)).statusCode).toBe(404);
  });

  it('filters by creation and update time, bounds inclusive, and binds the cursor to them', async () => {
    const c = await t.newCaller();
    const made: { id: string; createdAt: string; updatedAt: string }[] = [];
    for (let i = 0; i < 4; i++) {
      made.push((await c.req('POST', '/tokens', { name: `timed-${i}`, permissions: ['VIEW'] })).json());
      await new Promise((r) => setTimeout(r, 5));
    }
    const ids = async (query: string) => {
      const res = await c.req('GET', `/tokens?limit=100&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as { id: string }[]).map((x) => x.id).filter((id) => made.some((m) => m.id === id));
    };
    const at = (i: number, field: 'createdAt' | 'updatedAt' = 'createdAt') => encodeURIComponent(made[i]![field]);
    expect(await ids(`createdAfter=${at(1)}`)).toEqual(made.slice(1).map((m) => m.id));
    expect(await ids(`createdBefore=${at(2)}`)).toEqual(made.slice(0, 3).map((m) => m.id));
    expect(await ids(`createdAfter=${at(1)}&createdBefore=${at(2)}`)).toEqual([made[1]!.id, made[2]!.id]);
    expect(await ids(`updatedAfter=${at(3, 'updatedAt')}`)).toEqual([made[3]!.id]);
    expect(await ids(`updatedBefore=${at(0, 'updatedAt')}`)).toEqual([made[0]!.id]);
    const page = (await c.req('GET', `/tokens?limit=1&createdAfter=${at(1)}`)).json();
    expect(page.totalCount).toBe(3);
    const other = await c.req('GET', `/tokens?limit=1&createdAfter=${at(2)}&cursor=${page.nextCursor}`);
    expect(other.statusCode).toBe(400);
    expect(other.json().details.errors).toEqual([expect.objectContaining({ field: 'cursor' })]);
    const bad = await c.req('GET', '/tokens?createdAfter=yesterday&updatedBefore=2026-13-01T00:00:00Z');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['createdAfter', 'updatedBefore']);
  });
});
