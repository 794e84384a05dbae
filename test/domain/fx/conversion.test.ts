import { describe, expect, it } from 'vitest';
import { convert, convertDown, sendingFor } from '../../../src/domain/fx/conversion.js';
import { invert, isDecimalRate, parseDecimal, toDecimalString } from '../../../src/domain/fx/exact-rate.js';
import { midRate, RATED_CURRENCIES, sendingLimits, tableRate } from '../../../src/domain/fx/rate-table.js';
import { currencyOf } from '../../../src/domain/shared/currencies.js';

const NO_FEE = { fixed: 0n, variableBps: 0n };

describe('exact rates', () => {
  it('parses decimals exactly and refuses what is not a positive decimal', () => {
    expect(parseDecimal('17.25')).toEqual({ num: 69n, den: 4n });
    expect(parseDecimal('0.1')).toEqual({ num: 1n, den: 10n });
    for (const bad of ['0', '0.000', '-1', '1e3', '.5', '01.5', '1.', 'NaN', '1.1234567890123']) expect(isDecimalRate(bad), bad).toBe(false);
  });

  it('shows a rate to 10 decimals rounded half up, where binary floating point would drift', () => {
    expect(toDecimalString(parseDecimal('0.1'))).toBe('0.1');
    expect(toDecimalString({ num: 1n, den: 3n })).toBe('0.3333333333');
    expect(toDecimalString({ num: 2n, den: 3n })).toBe('0.6666666667');
    expect(toDecimalString(invert(parseDecimal('82.5')))).toBe('0.0121212121');
  });
});

describe('rounding at each currency\'s decimals', () => {
  // One unit of the sending currency buys 1/3 of a receiving unit: every conversion leaves a remainder.
  const third = { num: 1n, den: 3n };
  const cases: [number, number, bigint, bigint][] = [
    // sending decimals, receiving decimals, sending minor units, receiving minor units (rounded down)
    [2, 0, 100n, 0n], // 1.00 -> 0.333 of a 0-decimal unit: nothing
    [2, 0, 300n, 1n],
    [2, 0, 599n, 1n], // 5.99 -> 1.996 -> 1
    [0, 2, 1n, 33n], // 1 -> 0.3333 -> 0.33
    [2, 2, 100n, 33n],
    [2, 3, 100n, 333n],
    [3, 2, 1000n, 33n],
    [2, 6, 1n, 3333n], // 0.01 -> 0.003333.. at 6 decimals
    [2, 8, 100n, 33_333_333n],
    [8, 2, 100_000_000n, 33n],
    [8, 0, 299_999_999n, 0n], // 2.99999999 -> 0.99999 -> 0
  ];
  it.each(cases)('%i -> %i decimals: %s converts down to %s, and the fewest to deliver it round up', (sd, rd, sending, receiving) => {
    expect(convertDown(sending, third, sd, rd)).toBe(receiving);
    if (receiving > 0n) {
      const needed = sendingFor(receiving, third, sd, rd);
      expect(convertDown(needed, third, sd, rd)).toBeGreaterThanOrEqual(receiving);
      expect(convertDown(needed - 1n, third, sd, rd)).toBeLessThan(receiving);
      expect(needed).toBeLessThanOrEqual(sending);
    }
  });

  it('every rated currency round-trips one major unit of USD at its own decimals, with nothing lost beyond one minor unit', () => {
    for (const c of RATED_CURRENCIES) {
      if (c.code === 'USD') continue;
      const rate = tableRate('USD', c.code);
      const received = convertDown(100n, rate, 2, c.decimals);
      const back = sendingFor(received, rate, 2, c.decimals);
      expect(back, c.code).toBeLessThanOrEqual(100n);
      expect(convertDown(back, rate, 2, c.decimals), c.code).toBe(received);
    }
    expect(currencyOf('VND').decimals).toBe(0);
    expect(currencyOf('BTC').decimals).toBe(8);
    expect(currencyOf('USDC').decimals).toBe(6);
  });
});

describe('quote amounts', () => {
  const usdEur = parseDecimal('0.92');
  const fee = { fixed: 100n, variableBps: 50n };

  it('locked SENDING: fees come out of the amount, what is left converts rounded down, and the parts add up', () => {
    const c = convert('SENDING', 10_000n, usdEur, 2, 2, fee)!;
    // (10000 - 100) / 1.005 = 9850.74.. -> 9850 converted; fee 150 (100 fixed + 49.25 rounded up, + the rounding)
    expect(c).toEqual({ totalSending: 10_000n, converted: 9850n, totalReceiving: 9062n, fees: 150n });
    expect(c.converted + c.fees).toBe(c.totalSending);
    expect(c.fees).toBeGreaterThanOrEqual(fee.fixed + (c.converted * fee.variableBps + 9_999n) / 10_000n);
  });

  it('locked RECEIVING: the fewest sending units that deliver the amount, plus their fee', () => {
    const c = convert('RECEIVING', 9200n, usdEur, 2, 2, fee)!;
    expect(c.converted).toBe(10_000n);
    expect(c.fees).toBe(150n);
    expect(c.totalSending).toBe(10_150n);
    expect(c.totalReceiving).toBe(9200n);
    const odd = convert('RECEIVING', 1n, usdEur, 2, 2, NO_FEE)!;
    expect(odd.converted).toBe(2n); // 0.01 / 0.92 = 0.0108.. -> 0.02
  });

  it('an amount the fees swallow, or that converts to nothing, has no conversion', () => {
    expect(convert('SENDING', 100n, usdEur, 2, 2, fee)).toBeUndefined();
    expect(convert('SENDING', 1n, parseDecimal('0.0001'), 2, 2, NO_FEE)).toBeUndefined();
  });
});

describe('the sandbox table', () => {
  it('quotes the mid-market rate less 50 bps, none within a currency', () => {
    expect(tableRate('USD', 'USD')).toEqual({ num: 1n, den: 1n });
    expect(midRate('USD', 'EUR')).toEqual({ num: 25n, den: 27n });
    // 25/27 x 199/200, reduced
    expect(tableRate('USD', 'EUR')).toEqual({ num: 199n, den: 216n });
  });

  it('limits a currency to one to 100,000 US dollars\' worth', () => {
    expect(sendingLimits('USD')).toEqual({ min: 100, max: 10_000_000 });
    expect(sendingLimits('BTC')).toEqual({ min: 1667, max: 166_666_666 });
    expect(sendingLimits('VND')).toEqual({ min: 25_000, max: 2_500_000_000 });
  });
});
