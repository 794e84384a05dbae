/** Requests sent at a steady rate, each matched to the verified webhook it should cause (the webhooks, transfers and quotes benches; webhook-target.ts their server and receiver). */

/** Requests in flight at most: past it the pacer waits, so a stalled server shows as a missed rate rather than a pile of sockets. */
const MAX_IN_FLIGHT = 512;

export interface PacedPhase {
  /** Seconds from the first request to the last answer. */
  seconds: number;
  refused: number;
  /** Milliseconds from each accepted answer to its webhook, sorted; an accepted request whose webhook never came has none. */
  latencies: number[];
}

/**
 * Sends `rate` requests a second for `seconds`: `send(i)` makes the i-th and answers the key its
 * webhook will carry (undefined when refused) and when the answer came. `arrived` is filled by the
 * receiver, key -> arrival time; stragglers get 30 s before they count as lost.
 */
export async function pacedPhase(
  rate: number,
  seconds: number,
  send: (i: number) => Promise<{ key: string | undefined; at: number }>,
  arrived: ReadonlyMap<string, number>,
  accepted: Map<string, number>,
): Promise<PacedPhase> {
  let sent = 0;
  let refused = 0;
  let inFlight = 0;
  const total = Math.round(rate * seconds);
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      while (sent < due && inFlight < MAX_IN_FLIGHT) {
        const i = sent;
        sent += 1;
        inFlight += 1;
        send(i)
          .then(({ key, at }) => (key === undefined ? (refused += 1) : accepted.set(key, at)))
          .catch(() => (refused += 1))
          .finally(() => (inFlight -= 1));
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  const elapsed = (performance.now() - started) / 1000;
  const waitUntil = performance.now() + 30_000;
  while (performance.now() < waitUntil && [...accepted.keys()].some((k) => !arrived.has(k))) await new Promise((r) => setTimeout(r, 20));
  const latencies: number[] = [];
  for (const [key, at] of accepted) {
    const got = arrived.get(key);
    if (got !== undefined) latencies.push(Math.max(0, got - at));
  }
  return { seconds: elapsed, refused, latencies: latencies.sort((a, b) => a - b) };
}
