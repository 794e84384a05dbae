import { ceilDiv, floorDiv, type ExactRate } from './exact-rate.js';

/** A fee charged on the sending side: a fixed amount and basis points of the amount converted, both in sending minor units. */
export interface SendingFee {
  fixed: bigint;
  variableBps: bigint;
}

export type LockedSide = 'SENDING' | 'RECEIVING';

export interface Conversion {
  /** Everything the sender pays: the amount converted plus the fees. */
  totalSending: bigint;
  /** The part of totalSending that is converted. */
  converted: bigint;
  totalReceiving: bigint;
  fees: bigint;
}

/**
 * Minor units of the receiving currency for `sendingMinor` minor units of the sending currency at
 * `rate` (receiving units per sending unit), rounded down: the receiver never gets a fraction more.
 */
export function convertDown(sendingMinor: bigint, rate: ExactRate, sendingDecimals: number, receivingDecimals: number): bigint {
  return floorDiv(sendingMinor * rate.num * 10n ** BigInt(receivingDecimals), rate.den * 10n ** BigInt(sendingDecimals));
}

/** The fewest sending minor units that convert (rounded down) to at least `receivingMinor`. */
export function sendingFor(receivingMinor: bigint, rate: ExactRate, sendingDecimals: number, receivingDecimals: number): bigint {
  return ceilDiv(receivingMinor * rate.den * 10n ** BigInt(sendingDecimals), rate.num * 10n ** BigInt(receivingDecimals));
}

/** The fee on `converted` sending minor units, the variable part rounded up. */
export const feeOn = (converted: bigint, fee: SendingFee): bigint => fee.fixed + ceilDiv(converted * fee.variableBps, 10_000n);

/**
 * Both sides of a quote, in integer arithmetic. Locked SENDING: the most that can be converted so
 * that it and its fee fit in the amount (whatever rounding leaves over is fee). Locked RECEIVING:
 * the fewest sending units that deliver the amount, plus their fee. Undefined when the fees leave
 * nothing to convert or the amount converts to nothing.
 */
export function convert(side: LockedSide, amount: bigint, rate: ExactRate, sendingDecimals: number, receivingDecimals: number, fee: SendingFee): Conversion | undefined {
  if (side === 'SENDING') {
    const converted = amount > fee.fixed ? floorDiv((amount - fee.fixed) * 10_000n, 10_000n + fee.variableBps) : 0n;
    const totalReceiving = convertDown(converted, rate, sendingDecimals, receivingDecimals);
    if (converted <= 0n || totalReceiving <= 0n) return undefined;
    return { totalSending: amount, converted, totalReceiving, fees: amount - converted };
  }
  const converted = sendingFor(amount, rate, sendingDecimals, receivingDecimals);
  const fees = feeOn(converted, fee);
  return { totalSending: converted + fees, converted, totalReceiving: amount, fees };
}

/** Whether every amount of a conversion is exact as a JSON number (at most 2^53 - 1): larger ones are refused, not rounded. */
export const withinSafeIntegers = (c: Conversion): boolean => [c.totalSending, c.totalReceiving, c.fees].every((v) => v <= BigInt(Number.MAX_SAFE_INTEGER));
