import { CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrator.js';
import { withValuesWritten } from '../../src/store/pg-deferred-writes.js';
import { updateRows } from '../../src/store/bulk.js';
import { insertPlatform } from '../../src/store/tokens-repo.js';
import { describeOnNewDatabase } from '../helpers/migrations.js';

/** Values a tenant can put in a name or a webhook body: quotes, backslashes, a placeholder's text, JSON, other scripts. */
const HOSTILE = ["it's", 'a\\b', "\\'; drop table platforms; --", '$1 $2', '"quoted"', '{"a":"b\\"c"}', 'é 日本 🚀', '', ' ', 'null', 'E\'x\''];

describe('writing values into a deferred statement (PostgreSQL)', () => {
  it('replaces each placeholder with its value as a quoted literal, leaving quoted text alone', () => {
    const q = CompiledQuery.raw(`update t set a = $1, b = $2, "c$1" = 'x$1' where id in ($3)`, ["it's", 7, 'a\\b']);
    expect(withValuesWritten(q)).toBe(`update t set a = 'it''s', b = '7', "c$1" = 'x$1' where id in ( E'a\\\\b')`);
    expect(withValuesWritten(CompiledQuery.raw('select $1::text[]', [['a"b', null, 'c\\d', 5]]))).toBe(`select  E'{"a\\\\"b",NULL,"c\\\\\\\\d","5"}'::text[]`);
    expect(withValuesWritten(CompiledQuery.raw('select $1, $2, $3', [null, true, 10n]))).toBe(`select null, 'true', '10'`);
  });

  it('declines what it cannot write in: a NUL, an object, a nested array, a comment, a placeholder without its value', () => {
    expect(withValuesWritten(CompiledQuery.raw('select $1', ['a\0b']))).toBeUndefined();
    expect(withValuesWritten(CompiledQuery.raw('select $1', [{ a: 1 }]))).toBeUndefined();
    expect(withValuesWritten(CompiledQuery.raw('select $1', [[['a']]]))).toBeUndefined();
    expect(withValuesWritten(CompiledQuery.raw('select $1', [Number.NaN]))).toBeUndefined();
    expect(withValuesWritten(CompiledQuery.raw('select 1 -- $1', [1]))).toBeUndefined();
    expect(withValuesWritten(CompiledQuery.raw('select $2', [1]))).toBeUndefined();
    expect(withValuesWritten(CompiledQuery.raw("select 'open", []))).toBeUndefined();
  });
});

describeOnNewDatabase("a unit of work's writes nobody reads (UnitOfWork.write)", (t) => {
    const settings = async (prefix: string) =>
      (await t.store.db.selectFrom('server_settings').select(['key', 'value']).where('key', 'like', `${prefix}%`).orderBy('key').execute()).map((r) => [r.key, r.value]);
    beforeAll(() => migrateToLatest(t.store));

    it('stores every value exactly, and a statement after them sees them', async () => {
      const rows = HOSTILE.map((value, i) => ({ key: `exact:${String(i).padStart(2, '0')}`, value }));
      await t.store.transaction(async (uow) => {
        for (const row of rows) await uow.write(uow.db.insertInto('server_settings').values(row));
        expect((await uow.db.selectFrom('server_settings').select('key').where('key', 'like', 'exact:%').execute()).length).toBe(rows.length);
      });
      expect(await settings('exact:')).toEqual(rows.map((r) => [r.key, r.value]));
      // updateRows sends its values as typed arrays (PostgreSQL).
      const platformRows = HOSTILE.map((name, i) => ({ id: `Platform:exact-${t.store.engine}-${String(i).padStart(2, '0')}`, name: `old ${i}`, created_at: 1 }));
      for (const row of platformRows) await insertPlatform(t.store.db, row);
      await t.store.transaction((uow) => updateRows(uow, 'platforms', { name: 'text' }, platformRows.map((r, i) => ({ id: r.id, name: HOSTILE[i]! }))));
      const names = await t.store.db.selectFrom('platforms').select(['id', 'name']).where('id', 'like', `Platform:exact-${t.store.engine}-%`).orderBy('id').execute();
      expect(names.map((r) => r.name)).toEqual(HOSTILE);
    });

    it('a rollback drops them; one that fails fails the commit, which then writes nothing', async () => {
      await expect(
        t.store.transaction(async (uow) => {
          await uow.write(uow.db.insertInto('server_settings').values({ key: 'dropped:a', value: 'x' }));
          throw new Error('after the write');
        }),
      ).rejects.toThrow('after the write');
      expect(await settings('dropped:')).toEqual([]);
      await t.store.db.insertInto('server_settings').values({ key: 'taken:a', value: 'first' }).execute();
      await expect(
        t.store.transaction(async (uow) => {
          await uow.write(uow.db.insertInto('server_settings').values({ key: 'taken:b', value: 'x' }));
          await uow.write(uow.db.insertInto('server_settings').values({ key: 'taken:a', value: 'again' }));
        }),
      ).rejects.toThrow();
      expect(await settings('taken:')).toEqual([['taken:a', 'first']]);
    });

    it('one that fails inside a savepoint undoes the savepoint only', async () => {
      await t.store.db.insertInto('server_settings').values({ key: 'sp:taken', value: 'first' }).execute();
      await t.store.transaction(async (uow) => {
        await uow.write(uow.db.insertInto('server_settings').values({ key: 'sp:before', value: 'x' }));
        await expect(
          uow.savepoint(async () => {
            await uow.write(uow.db.insertInto('server_settings').values({ key: 'sp:inside', value: 'x' }));
            await uow.write(uow.db.insertInto('server_settings').values({ key: 'sp:taken', value: 'again' }));
          }),
        ).rejects.toThrow();
        await uow.write(uow.db.insertInto('server_settings').values({ key: 'sp:after', value: 'x' }));
      });
      expect(await settings('sp:')).toEqual([
        ['sp:after', 'x'],
        ['sp:before', 'x'],
        ['sp:taken', 'first'],
      ]);
    });

});
