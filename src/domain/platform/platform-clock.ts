import { clockOffsetQuery, findClockOffset } from '../../store/clock-repo.js';
import type { Store } from '../../store/store.js';
import type { UnitOfWork } from '../../store/unit-of-work.js';

/** The PostgreSQL channel on which an advance tells every process to read the platform's offset again. */
export const CLOCK_CHANNEL = 'payments_clock';

/** A job's fields that make it due at a time of its platform's clock (jobs-repo NewJob); an advance pulls it forward. */
export interface PlatformDue {
  platformId: string;
  platformDueAt: number;
  runAt: number;
}

/**
 * Each platform's time: real time plus the offset its sandbox advances added (production scopes
 * are never advanced, so theirs is real time). On PostgreSQL, where a statement is a round trip,
 * the offset is read once per process and kept: a request pays no statement for it. An advance
 * sets it here as it commits and notifies every other process in its commit, which drops what it
 * kept (see {@link forget}); offsets only grow, so a stale one could only be behind, and only for
 * the notification's flight. On SQLite (one machine, no round trip) it is read on every call, from
 * the read-only connection: exact across the processes of a cluster.
 */
export class PlatformClock {
  private readonly offsets = new Map<string, number>();
  /** Counts forget() calls: a read that a forget overtook may be stale, so it is not kept. */
  private generation = 0;
  private readonly waiting: (() => void)[] = [];

  private readonly read: ReturnType<typeof clockOffsetQuery>;
  private readonly keep: boolean;

  constructor(
    store: Store,
    private readonly realNow: () => number = Date.now,
  ) {
    this.read = clockOffsetQuery(store);
    // Kept only where other processes' advances are heard of (LISTEN/NOTIFY, PostgreSQL); elsewhere reads are local and cheap.
    this.keep = store.wakeups !== undefined;
  }

  /**
   * Now on the platform's clock, epoch ms: the one call for every timestamp written for a platform.
   * Inside a unit of work, pass it: where the offset is read each time (SQLite) it is read on the
   * writer's own connection, not the read-only one (a read there while another process waited on
   * the write lock stalled two workers on one file).
   */
  async now(platformId: string, within?: UnitOfWork): Promise<number> {
    return this.realNow() + (await this.offset(platformId, within));
  }

  /** The fields of a job due `delayMs` from now on the platform's clock: spread into enqueueJob's job. */
  async due(platformId: string, delayMs: number): Promise<PlatformDue> {
    const offset = await this.offset(platformId);
    const real = this.realNow();
    return { platformId, platformDueAt: real + offset + delayMs, runAt: real + delayMs };
  }

  /** The platform's offset in ms (0 for an unknown one, which nothing is stamped for). */
  async offset(platformId: string, within?: UnitOfWork): Promise<number> {
    if (!this.keep && within) return (await findClockOffset(within.db, platformId)) ?? 0;
    const known = this.keep ? this.offsets.get(platformId) : undefined;
    if (known !== undefined) return known;
    const generation = this.generation;
    const read = Number((await this.read.first({ id: platformId }))?.clock_offset_ms ?? 0);
    if (!this.keep) return read;
    // An advance that answered while this read ran has set a larger one: keep that.
    const offset = Math.max(read, this.offsets.get(platformId) ?? 0);
    if (generation === this.generation) this.offsets.set(platformId, offset);
    return offset;
  }

  /** An advance committed this offset (offsets only grow). */
  set(platformId: string, offsetMs: number): void {
    if (this.keep) this.offsets.set(platformId, Math.max(offsetMs, this.offsets.get(platformId) ?? 0));
  }

  /** Another process advanced some platform: read every offset again on next use. */
  forget(): void {
    this.generation += 1;
    this.offsets.clear();
    for (const wake of this.waiting.splice(0)) wake();
  }

  /**
   * Resolves when this process next hears of an advance (its own included), or after `timeoutMs`;
   * at once where offsets are not kept. An advance waits for its own notification before it
   * answers: PostgreSQL sends it to every listening process at the same commit, so by then the
   * others have it too.
   */
  nextNotice(timeoutMs: number): Promise<void> {
    if (!this.keep) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      setTimeout(resolve, timeoutMs).unref();
    });
  }
}
