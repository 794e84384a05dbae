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
  private readonly windows = new Map<string, WindowCount>();

  constructor(
    private readonly windowMs: number,
    private readonly maxEntries: number,
    readonly now: () => number,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** The key's window if it has not ended. */
  current(key: string, now = this.now()): WindowCount | undefined {
    const w = this.windows.get(key);
    return w !== undefined && w.endsAt > now ? w : undefined;
  }

  /** Counts one more for the key, starting a new window when its last one has ended. */
  hit(key: string, now = this.now()): WindowCount {
    let w = this.windows.get(key);
    if (w === undefined || w.endsAt <= now) {
      if (w !== undefined) this.windows.delete(key);
      else if (this.windows.size >= this.maxEntries) this.evict(now);
      w = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return w;
  }

  /** Makes room: drops ended windows, else the oldest (Map keeps insertion order). */
  private evict(now: number): void {
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
    if (this.windows.size >= this.maxEntries) this.windows.delete(this.windows.keys().next().value!);
  }
}
