import { LRUCache } from 'lru-cache';

/** One key's count in its current window. */
export interface WindowCount {
  count: number;
  endsAt: number;
}

/**
 * Counts per key in fixed windows of `windowMs`, in this process's memory, holding at most
 * `maxEntries` keys (past that, ended windows and then the oldest are dropped). Shared by the
 * failed-authentication throttle and the per-token request limit.
 */
export class FixedWindowCounts {
  // Read with peek and re-set only when a window starts, so the least recently used key is the one
  // whose window started first, hence ends first: LRU eviction drops ended windows, then the oldest.
  private readonly windows: LRUCache<string, WindowCount>;

  constructor(
    private readonly windowMs: number,
    maxEntries: number,
    readonly now: () => number,
  ) {
    this.windows = new LRUCache({ max: maxEntries });
  }

  get size(): number {
    return this.windows.size;
  }

  /** The key's window if it has not ended. */
  current(key: string, now = this.now()): WindowCount | undefined {
    const w = this.windows.peek(key);
    return w !== undefined && w.endsAt > now ? w : undefined;
  }

  /** Counts one more for the key, starting a new window when its last one has ended. */
  hit(key: string, now = this.now()): WindowCount {
    let w = this.windows.peek(key);
    if (w === undefined || w.endsAt <= now) {
      w = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return w;
  }
}
