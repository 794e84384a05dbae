import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { scopedStore, type Store } from './store.js';

/** A pool of `max` connections; reads are plain pool queries. */
export function openPostgres(url: string, max: number): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types: {
      // int8 columns hold millisecond times and counts, all well inside Number's safe range.
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const read = async <R>(query: CompiledQuery<R>): Promise<R[]> =>
    (await pool.query({ text: query.sql, values: query.parameters as unknown[] })).rows as R[];
  return scopedStore(db, 'postgres', read, () => db.destroy());
}
