import { describe, expect, it } from 'vitest';
import { WeftError, formatError } from '../src/errors.js';

describe('formatError', () => {
  it('puts the place before the message', () => {
    expect(
      formatError(
        new WeftError('BAD_INPUT', 'unknown field', {
          location: { file: 'a.yaml', line: 3, column: 1, field: 'colour' },
        }),
      ),
    ).toBe('a.yaml:3:1 colour: unknown field');
  });

  it('does not repeat a place the message already opens with', () => {
    expect(
      formatError(new WeftError('BAD_INPUT', '--k expects an integer >= 1, got "x"', { location: { field: '--k' } })),
    ).toBe('--k expects an integer >= 1, got "x"');
    // Only a whole word counts: "--kind" is not "--k".
    expect(formatError(new WeftError('BAD_INPUT', '--kind is wrong', { location: { field: '--k' } }))).toBe(
      '--k: --kind is wrong',
    );
  });
});
