/**
 * Failed-authentication throttle, per client id and per address, kept in each process's memory.
 *
 * Each key may fail `burst` times within a window; past that every attempt on it, whatever the
 * secret, is refused until the window ends. The state is per process, deliberately: a successful
 * authentication only reads two entries of an (almost always empty) Map, with no database round
 * trip, and a failure only writes to it. The bound is documented as such: with N processes behind
 * one port an attacker gets at most N x burst guesses per window, which against 256-bit secrets
 * changes nothing; what the throttle removes is the flood (thousands of guesses a second).
 */
export interface ThrottleVerdict {
  retryAfterSeconds: number;
}

interface Entry {
  failures: number;
  windowEndsAt: number;
}

export class AuthFailureThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly burstOf: (key: string) => number,
    private readonly windowMs: number,
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  isEmpty(): boolean {
    return this.entries.size === 0;
  }

  /** Undefined when the keys may try; else how long until they may. */
  check(keys: readonly string[]): ThrottleVerdict | undefined {
    if (this.entries.size === 0) return undefined;
    let until = 0;
    const now = this.now();
    for (const key of keys) {
      const e = this.entries.get(key);
      if (e !== undefined && e.failures >= this.burstOf(key) && e.windowEndsAt > now && e.windowEndsAt > until) until = e.windowEndsAt;
    }
    return until === 0 ? undefined : { retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
  }

  /** Counts one failed authentication against each key. */
  fail(keys: readonly string[]): void {
    const now = this.now();
    for (const key of keys) {
      let e = this.entries.get(key);
      if (e === undefined || e.windowEndsAt <= now) {
        if (e !== undefined) this.entries.delete(key);
        else if (this.entries.size >= this.maxEntries) this.evict(now);
        e = { failures: 0, windowEndsAt: now + this.windowMs };
        this.entries.set(key, e);
      }
      e.failures++;
    }
  }

  /** Makes room: drops expired entries, else the oldest (Map keeps insertion order). */
  private evict(now: number): void {
    for (const [key, e] of this.entries) if (e.windowEndsAt <= now) this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
