import { describe, expect, it } from 'vitest';
import { WeftError } from '../src/errors.js';
import { integerOption } from '../src/integer-option.js';

describe('integerOption', () => {
  it('returns an integer within the range', () => {
    expect(integerOption(0, 'seed')).toBe(0);
    expect(integerOption(4, 'concurrency', { min: 1 })).toBe(4);
    expect(integerOption(100, 'n', { min: 1, max: 100 })).toBe(100);
  });

  it.each([
    [0, { min: 1 }, 'concurrency expects an integer >= 1, got 0'],
    [2.5, {}, 'concurrency expects an integer >= 0, got 2.5'],
    [Number.NaN, { min: 1 }, 'concurrency expects an integer >= 1, got NaN'],
    [2 ** 60, { min: 1 }, `concurrency expects an integer >= 1, got ${2 ** 60}`],
    ['3', { min: 1 }, 'concurrency expects an integer >= 1, got 3'],
    [101, { min: 1, max: 100 }, 'concurrency expects an integer from 1 to 100, got 101'],
  ])('rejects %s (%o) with a BAD_INPUT naming the field', (value, range, message) => {
    const error = (() => {
      try {
        integerOption(value, 'concurrency', range);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(WeftError);
    expect(error).toMatchObject({ code: 'BAD_INPUT', message, location: { field: 'concurrency' } });
  });

  it('quotes the value as the caller shows it', () => {
    expect(() => integerOption(Number.NaN, '--k', { min: 1 }, '"x"')).toThrow('--k expects an integer >= 1, got "x"');
  });
});
