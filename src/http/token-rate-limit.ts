import { FixedWindowCounts } from './fixed-window.js';

/**
 * Per-token request limit (RATE_LIMIT_PER_TOKEN requests per RATE_LIMIT_WINDOW_MS), a fixed window
 * kept in each process's memory like the failed-authentication throttle: no database round trip
 * per request, and with N processes behind one port a token gets at most N x limit per window.
 */
export interface RateLimitState {
  limit: number;
  /** Requests the token may still send in this window (0 once it is over the limit). */
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
  /** True when this request is over the limit. */
  limited: boolean;
}

export class TokenRateLimit {
  private readonly requests: FixedWindowCounts;

  constructor(
    private readonly limit: number,
    windowMs: number,
    maxEntries = 100_000,
    now: () => number = Date.now,
  ) {
    this.requests = new FixedWindowCounts(windowMs, maxEntries, now);
  }

  /** Counts one request of the token and says where it stands. */
  take(tokenId: string): RateLimitState {
    const now = this.requests.now();
    const w = this.requests.hit(tokenId, now);
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - w.count),
      resetSeconds: Math.max(1, Math.ceil((w.endsAt - now) / 1000)),
      limited: w.count > this.limit,
    };
  }
}

/** The IETF draft's separate fields (draft-ietf-httpapi-ratelimit-headers, RateLimit-Limit/-Remaining/-Reset). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'ratelimit-limit': String(state.limit),
    'ratelimit-remaining': String(state.remaining),
    'ratelimit-reset': String(state.resetSeconds),
  };
}
