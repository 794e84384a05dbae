/**
 * Lookups by key asked for in the same turn of the event loop go out as one call of `many` (for
 * example one statement with `id in (...)`): on PostgreSQL every statement is a round trip, and the
 * worker starts the runs it claimed in one go. Each caller gets its key's value, or undefined.
 */
export function batchedLookup<K, V>(many: (keys: K[]) => Promise<Map<K, V>>): (key: K) => Promise<V | undefined> {
  let waiting: Map<K, { resolve: (v: V | undefined) => void; reject: (err: unknown) => void }[]> | undefined;
  const flush = (batch: NonNullable<typeof waiting>) => {
    many([...batch.keys()]).then(
      (found) => {
        for (const [key, callers] of batch) for (const c of callers) c.resolve(found.get(key));
      },
      (err: unknown) => {
        for (const callers of batch.values()) for (const c of callers) c.reject(err);
      },
    );
  };
  return (key) =>
    new Promise((resolve, reject) => {
      if (!waiting) {
        const batch = (waiting = new Map());
        setImmediate(() => {
          waiting = undefined;
          flush(batch);
        });
      }
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
