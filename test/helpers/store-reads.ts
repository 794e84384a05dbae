import { vi } from 'vitest';
import type { Store } from '../../src/store/store.js';

/** Records the hot-path reads (Store.read) a store runs from now on; counts them by their SQL. */
export function recordReads(store: Store) {
  const spy = vi.spyOn(store, 'read');
  return {
    /** Reads run so far whose SQL matches `sql`. */
    count: (sql: RegExp) => spy.mock.calls.filter(([query]) => sql.test(query.sql)).length,
    restore: () => spy.mockRestore(),
  };
}

/** The statement that reads a token to authenticate a request (its secret's hash with it). */
export const TOKEN_READ = /"secret_hash"/;
/** A statement that confirms the request's token is live while it reads something else (liveTokenCount). */
export const TOKEN_CONFIRMED = /\(select count\(\*\) from api_tokens where id = /;
/** A statement that reads a page of beneficial owners (not a check of their version). */
export const OWNER_PAGE_READ = /from beneficial_owners/;
