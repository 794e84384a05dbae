import { FixedWindowCounts } from './fixed-window.js';

/**
 * Failed-authentication throttle, per client id and per address, kept in each process's memory.
 *
 * Each key may fail `burst` times within a window; past that the key is held until the window
 * ends. What a held key refuses is the caller's (http/auth.ts): the failures, not valid tokens that
 * share an address with them. The state is per process, deliberately: a successful authentication
 * only reads two entries of an (almost always empty) map, with no database round trip, and a
 * failure only writes to it. The bound is documented as such: with N processes behind one port an
 * attacker gets at most N x burst guesses per window, which against 256-bit secrets changes
 * nothing; what the throttle removes is the flood (thousands of guesses a second).
 */
export interface ThrottleVerdict {
  retryAfterSeconds: number;
}

export class AuthFailureThrottle {
  private readonly failures: FixedWindowCounts;

  constructor(
    private readonly burstOf: (key: string) => number,
    windowMs: number,
    maxEntries = 100_000,
    now: () => number = Date.now,
  ) {
    this.failures = new FixedWindowCounts(windowMs, maxEntries, now);
  }

  isEmpty(): boolean {
    return this.failures.size === 0;
  }

  /** Undefined when the keys may try; else how long until they may. */
  check(keys: readonly string[]): ThrottleVerdict | undefined {
    if (this.failures.size === 0) return undefined;
    let until = 0;
    const now = this.failures.now();
    for (const key of keys) {
      const w = this.failures.current(key, now);
      if (w !== undefined && w.count >= this.burstOf(key) && w.endsAt > until) until = w.endsAt;
    }
    return until === 0 ? undefined : { retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
  }

  /** Counts one failed authentication against each key. */
  fail(keys: readonly string[]): void {
    const now = this.failures.now();
    for (const key of keys) this.failures.hit(key, now);
  }
}
