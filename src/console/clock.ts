import type { FastifyRequest } from 'fastify';
import type { ClockReading } from '../domain/platform/sandbox-clock.js';
import type { ConsoleContext } from './index.js';
import { isLiveRefresh } from './pages/list-query.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in platform's sandbox clock, read for the layout of a full page. */
    consoleClock?: ClockReading;
  }
}

/** Reads the platform's clock before a full page renders (a live region's fragment has no layout, so no read). */
export function readClock(ctx: ConsoleContext) {
  return async (request: FastifyRequest) => {
    if (request.consoleSession && !isLiveRefresh(request.headers)) request.consoleClock = await ctx.services.sandboxClock.read(request.consoleSession.platformId);
  };
}

const UNITS: [string, number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** How far a clock is ahead of real time, for a person: "2 days 3 hours", or "not advanced". */
export function advancedBy(seconds: number): string {
  if (seconds <= 0) return 'not advanced: real time';
  const parts: string[] = [];
  let left = seconds;
  for (const [unit, size] of UNITS) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
  }
  return `advanced by ${parts.join(' ')}`;
}
