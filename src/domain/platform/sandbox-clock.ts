import type { Logger } from '../../logger.js';
import { countQueuedPlatformJobs, findClockOffset, lockClockOffset, platformsWithDueAuthorizations, pullPlatformJobsForward, setClockOffset } from '../../store/clock-repo.js';
import type { Store } from '../../store/store.js';
import { expireDueAuthorizations } from '../cards/authorization-expiry.js';
import { ValidationError, type FieldError } from '../shared/errors.js';
import { CLOCK_CHANNEL, type PlatformClock } from './platform-clock.js';

const DAY_MS = 86_400_000;
/** How far past real time a clock may go: two years. */
export const MAX_AHEAD_MS = 730 * DAY_MS;
/** How long an advance waits for the jobs it made due to land before answering anyway (a process without a worker). */
const SETTLE_TIMEOUT_MS = 60_000;
const SETTLE_POLL_MS = 20;
/** How long an advance waits to hear its own notification (every process hears it at once) before going on. */
const NOTICE_TIMEOUT_MS = 1_000;
/** Platforms one sweep looks at. */
const SWEEP_PLATFORMS = 100;

export interface ClockReading {
  now: string;
  advancedBySeconds: number;
}

export interface AdvanceInput {
  seconds?: number | undefined;
  to?: string | undefined;
}

const reading = (realNow: number, offsetMs: number): ClockReading => ({ now: new Date(realNow + offsetMs).toISOString(), advancedBySeconds: Math.floor(offsetMs / 1000) });

/**
 * The sandbox clock routes' service: reading a platform's clock and advancing it. An advance moves
 * the offset under the platform row's lock (advances on one platform run one at a time), pulls the
 * platform's clock-bound jobs forward, expires the authorizations whose time-to-live ran out, and
 * answers once the jobs made due are no longer queued (landed, their webhooks in the outbox).
 */
export class SandboxClockService {
  /** The advance running per platform in this process: the next one waits for it. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly clock: PlatformClock,
    private readonly authorizationTtlMs: number,
    /** Whether a job worker runs (here, or in a sibling server process): without one the jobs made due cannot land, and the advance answers without waiting for them. */
    private readonly workerRuns: boolean,
  ) {}

  async read(platformId: string): Promise<ClockReading> {
    const offset = (await findClockOffset(this.store.db, platformId)) ?? 0;
    this.clock.set(platformId, offset);
    return reading(Date.now(), offset);
  }

  async advance(platformId: string, input: AdvanceInput, log: Logger): Promise<ClockReading> {
    const shape = shapeErrors(input);
    if (shape.length > 0) throw new ValidationError(shape);
    const before = this.running.get(platformId) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.advanceNow(platformId, input, log));
    this.running.set(platformId, mine);
    try {
      return await mine;
    } finally {
      if (this.running.get(platformId) === mine) this.running.delete(platformId);
    }
  }

  private async advanceNow(platformId: string, input: AdvanceInput, log: Logger): Promise<ClockReading> {
    const heard = this.clock.nextNotice(NOTICE_TIMEOUT_MS);
    const { offset, real } = await this.store.transaction(async (uow) => {
      const current = (await lockClockOffset(uow, platformId)) ?? 0;
      const real = Date.now();
      const from = real + current;
      const target = input.seconds !== undefined ? from + input.seconds * 1000 : Date.parse(input.to!);
      const field = input.seconds !== undefined ? 'seconds' : 'to';
      if (target <= from) throw new ValidationError([{ field, message: `must move the clock forward from ${new Date(from).toISOString()}` }]);
      if (target > real + MAX_AHEAD_MS) throw new ValidationError([{ field, message: `must not move the clock more than two years past the real time (${new Date(real + MAX_AHEAD_MS).toISOString()})` }]);
      const offset = target - real;
      await setClockOffset(uow, platformId, offset, CLOCK_CHANNEL);
      if ((await pullPlatformJobsForward(uow.db, platformId, offset)) > 0) uow.jobsEnqueued();
      return { offset, real };
    });
    await heard;
    this.clock.set(platformId, offset);
    const platformNow = real + offset;
    const expired = await expireDueAuthorizations(this.store, { platformId, platformNow, defaultTtlMs: this.authorizationTtlMs }, log);
    if (expired > 0) log.info({ platformId, expired }, 'sandbox clock advance expired authorizations');
    if (this.workerRuns) await this.settle(platformId, platformNow, log);
    return reading(Date.now(), offset);
  }

  /** Waits until none of the platform's jobs due by `platformNow` is queued. */
  private async settle(platformId: string, platformNow: number, log: Logger): Promise<void> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    while ((await countQueuedPlatformJobs(this.store.db, platformId, platformNow)) > 0) {
      if (Date.now() > deadline) {
        log.warn({ platformId }, 'sandbox clock advance answered before every job it made due landed (is a worker running?)');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    }
  }

  /** The worker's periodic pass: expires, on every platform's clock, the authorizations whose time-to-live ran out in real time. */
  async sweep(log: Logger): Promise<number> {
    let expired = 0;
    for (const platformId of await platformsWithDueAuthorizations(this.store.db, Date.now(), this.authorizationTtlMs, SWEEP_PLATFORMS)) {
      const platformNow = await this.clock.now(platformId);
      expired += await expireDueAuthorizations(this.store, { platformId, platformNow, defaultTtlMs: this.authorizationTtlMs }, log);
    }
    if (expired > 0) log.info({ expired }, 'expired authorizations whose time-to-live ran out');
    return expired;
  }
}

/** Exactly one of seconds and to. */
function shapeErrors(input: AdvanceInput): FieldError[] {
  const both = input.seconds !== undefined && input.to !== undefined;
  const neither = input.seconds === undefined && input.to === undefined;
  if (both) return ['seconds', 'to'].map((field) => ({ field, message: 'give either seconds or to, not both' }));
  if (neither) return ['seconds', 'to'].map((field) => ({ field, message: 'give either seconds or to' }));
  return [];
}
