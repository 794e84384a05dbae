import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { PgListener, PgNotifier } from './pg-wakeups.js';
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
  const notifiers = new Map<string, PgNotifier>();
  const listeners = new Set<PgListener>();
  const store = scopedStore(db, 'postgres', read, async () => {
    await Promise.all([...listeners].map((l) => l.close()));
    await db.destroy();
  });
  store.wakeups = {
    notify(channel) {
      let n = notifiers.get(channel);
      if (!n) notifiers.set(channel, (n = new PgNotifier(pool, channel)));
      n.notify();
    },
    listen(channel, onWake, onError) {
      const listener = new PgListener(url, channel, onWake, onError);
      listeners.add(listener);
      return {
        get connected() {
          return listener.connected;
        },
        close: async () => {
          listeners.delete(listener);
          await listener.close();
        },
      };
    },
  };
  return store;
}
