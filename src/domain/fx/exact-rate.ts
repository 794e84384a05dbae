/** An exact positive rational (numerator over denominator): rates are never binary floating point. */
export interface ExactRate {
  num: bigint;
  den: bigint;
}

const DECIMAL = /^(0|[1-9]\d{0,11})(?:\.(\d{1,12}))?$/;

/** Whether `text` is a decimal this service takes for a rate: up to 12 digits each side of the point, greater than 0. */
export function isDecimalRate(text: string): boolean {
  const m = DECIMAL.exec(text);
  return m !== null && /[1-9]/.test(`${m[1]}${m[2] ?? ''}`);
}

/** `"17.25"` as 1725/100, exactly. */
export function parseDecimal(text: string): ExactRate {
  const m = DECIMAL.exec(text);
  if (m === null || !isDecimalRate(text)) throw new Error(`not a positive decimal: ${text}`);
  const fraction = m[2] ?? '';
  return reduce({ num: BigInt(`${m[1]}${fraction}`), den: 10n ** BigInt(fraction.length) });
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function reduce(r: ExactRate): ExactRate {
  const g = gcd(r.num, r.den);
  return g > 1n ? { num: r.num / g, den: r.den / g } : r;
}

export const multiply = (a: ExactRate, b: ExactRate): ExactRate => reduce({ num: a.num * b.num, den: a.den * b.den });
export const divide = (a: ExactRate, b: ExactRate): ExactRate => reduce({ num: a.num * b.den, den: a.den * b.num });
export const invert = (r: ExactRate): ExactRate => ({ num: r.den, den: r.num });
export const ONE: ExactRate = { num: 1n, den: 1n };

/** a / b rounded down (both non-negative). */
export const floorDiv = (a: bigint, b: bigint): bigint => a / b;
/** a / b rounded up (both non-negative). */
export const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/**
 * The rate as a decimal string with `places` digits after the point, rounded half up, trailing
 * zeros dropped: what a response shows (the arithmetic keeps the exact rational).
 */
export function toDecimalString(r: ExactRate, places = 10): string {
  const scale = 10n ** BigInt(places);
  const scaled = (r.num * scale * 2n + r.den) / (r.den * 2n);
  const whole = scaled / scale;
  const fraction = (scaled % scale).toString().padStart(places, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
