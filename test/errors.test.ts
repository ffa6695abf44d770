import { describe, expect, it } from 'vitest';
import { MAX_QUOTED_CHARS, WeftError, formatError } from '../src/errors.js';

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

describe('issues about a file quote at most MAX_QUOTED_CHARS of it', () => {
  const long = (mark: string) => `${mark}${'x'.repeat(60)}`;

  it('clips quotes across all issues of one error, and lists keys past the limit as a count', () => {
    const error = new WeftError('BAD_INPUT', 'invalid', {
      issues: [
        { file: 'f', line: 1, field: `["${long('A')}"]`, message: `unknown field "${long('A')}"` },
        { file: 'f', line: 2, field: `list[0].${long('B')}`, message: `unknown field "${long('B')}"` },
        { file: 'f', line: 3, message: `Unrecognized keys: "${long('C')}", "${long('D')}", "${long('E')}"` },
      ],
    });
    const [first, second, third] = error.issues;
    // The same key in the field and the message is shown the same way and counted once.
    expect(first?.message).toBe(`unknown field "A${'x'.repeat(MAX_QUOTED_CHARS - 1)}…"`);
    expect(first?.field).toBe(`["A${'x'.repeat(MAX_QUOTED_CHARS - 1)}…"]`);
    // Spent: a plain name in the field is clipped like its quote in the message.
    expect(second?.message).toBe('unknown field "…"');
    expect(second?.field).toBe('list[0].…');
    expect(third?.message).toBe('Unrecognized keys: "…" and 2 more');
    expect(formatError(error)).not.toContain('Bxx');
  });

  it('keeps short quotes whole, however many, and leaves issues that name no file alone', () => {
    const located = new WeftError('BAD_INPUT', 'invalid', {
      issues: Array.from({ length: 20 }, (_, i) => ({
        file: 'f',
        field: `modle${i}`,
        message: `unknown field "modle${i}" (did you mean "model"?)`,
      })),
    });
    expect(located.issues[19]?.message).toBe('unknown field "modle19" (did you mean "model"?)');
    expect(located.issues[19]?.field).toBe('modle19');
    const unlocated = new WeftError('BAD_INPUT', 'bad arguments', {
      issues: [{ field: 'query', message: `argument "query": got "${long('Q')}"` }],
    });
    expect(unlocated.issues[0]?.message).toBe(`argument "query": got "${long('Q')}"`);
  });

  it('counts issues without a file of their own when the error names the file', () => {
    const error = new WeftError('BAD_INPUT', 'invalid', {
      location: { file: 'f' },
      issues: [{ message: `unknown field "${long('Z')}"` }],
    });
    expect(error.issues[0]?.message).not.toContain('x'.repeat(MAX_QUOTED_CHARS));
  });
});
