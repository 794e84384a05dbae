/**
 * Delay before the next try after `attempts` failed tries: the schedule's entry, with up to
 * +/-20% jitter so a burst of failures does not retry in lockstep. Undefined when the schedule is spent.
 */
export function retryDelayMs(attempts: number, scheduleMs: readonly number[], random = Math.random): number | undefined {
  const base = scheduleMs[attempts - 1];
  if (base === undefined) return undefined;
  return Math.max(0, Math.round(base * (0.8 + 0.4 * random())));
}

/** For internal jobs (simulations): quick retries of transient failures, about 15 minutes in all. */
export const INTERNAL_RETRY_SCHEDULE_MS = [500, 2_000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000];
