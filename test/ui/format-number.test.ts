/**
 * The dashboard's one rule for numbers people read (web/format.js): measured values keep a few significant digits,
 * counts stay exact, and nothing comes out in exponent notation or as a float's noise.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { dollars, duration, formatNumber } from '../../web/format.js';

describe('numbers for people', () => {
  it('keeps three significant digits of a measured value and drops trailing zeros', () => {
    expect(formatNumber(2.9336839999998574)).toBe('2.93');
    expect(formatNumber(0.08283300000016425)).toBe('0.0828');
    expect(formatNumber(0.1135189999999966)).toBe('0.114');
    expect(formatNumber(0.9630000000000001)).toBe('0.963');
    expect(formatNumber(0.5)).toBe('0.5');
    expect(formatNumber(0.99999)).toBe('1');
    expect(formatNumber(-1.23456)).toBe('-1.23');
    expect(formatNumber(-0.0000001)).toBe('-0.0000001');
    expect(formatNumber(-0.00001, 1)).toBe('-0.00001');
    expect(formatNumber(1.23456, 5)).toBe('1.2346');
  });

  it('never cuts the digits before the point, and leaves whole numbers exact', () => {
    expect(formatNumber(1234.567)).toBe('1235');
    expect(formatNumber(98765.4)).toBe('98765');
    expect(formatNumber(1234567)).toBe('1234567');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(-3)).toBe('-3');
  });

  it('writes tiny values out instead of in exponent notation, and nothing for what is not a finite number', () => {
    expect(formatNumber(1.5e-7)).toBe('0.00000015');
    expect(formatNumber(1e-200)).toBe('0');
    expect(formatNumber(1e21)).toBe('1e+21');
    expect(formatNumber(Number.NaN)).toBe('');
    expect(formatNumber(Number.POSITIVE_INFINITY)).toBe('');
    expect(formatNumber('2.5')).toBe('');
    expect(formatNumber(undefined)).toBe('');
  });

  it('durations: ms below a second, s below a minute, then minutes and seconds', () => {
    expect(duration(2.9336839999998574)).toBe('2.93 ms');
    expect(duration(0)).toBe('0 ms');
    expect(duration(38.079)).toBe('38.1 ms');
    expect(duration(975)).toBe('975 ms');
    // Rounded before the unit is chosen: not "1000 ms".
    expect(duration(999.7)).toBe('1 s');
    expect(duration(2933.684)).toBe('2.93 s');
    expect(duration(59_400)).toBe('59.4 s');
    expect(duration(125_600)).toBe('2 min 6 s');
    expect(duration(Number.NaN)).toBe('');
  });

  it('dollars: cents from a dollar up, a few significant digits below', () => {
    expect(dollars(0)).toBe('$0');
    expect(dollars(0.0042317)).toBe('$0.00423');
    expect(dollars(0.25)).toBe('$0.25');
    expect(dollars(1.5)).toBe('$1.50');
    expect(dollars(1234.567)).toBe('$1234.57');
    expect(dollars(Number.NaN)).toBe('');
  });
});
