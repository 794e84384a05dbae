/** Reads a list page's query: the cursor and the filters it knows, unknown values dropped (a select offers only valid ones). */
export function listQuery<K extends string>(query: unknown, filters: Record<K, readonly string[] | 'text'>): { cursor?: string; filters: Partial<Record<K, string>> } {
  const q = (query ?? {}) as Record<string, unknown>;
  const out: Partial<Record<K, string>> = {};
  for (const [name, allowed] of Object.entries(filters) as [K, readonly string[] | 'text'][]) {
    const value = typeof q[name] === 'string' ? (q[name] as string).trim() : '';
    if (value === '' || value.length > 200) continue;
    if (allowed === 'text' || allowed.includes(value)) out[name] = value;
  }
  const cursor = typeof q.cursor === 'string' && q.cursor !== '' ? q.cursor : undefined;
  return cursor === undefined ? { filters: out } : { cursor, filters: out };
}

/** Whether htmx asked (a live region polling): it gets the fragment alone. */
export const isLiveRefresh = (headers: Record<string, unknown>) => headers['hx-request'] !== undefined;

export const PAGE_SIZE = 20;
