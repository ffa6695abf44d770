import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/text/json-syntax.js';
import { findDeepNesting, MAX_NESTING_DEPTH } from '../../src/text/nesting-depth.js';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('findDeepNesting', () => {
  it('accepts nesting up to the limit and points at the first collection past it', () => {
    expect(findDeepNesting(nested(MAX_NESTING_DEPTH))).toBeUndefined();
    expect(findDeepNesting(`a: ${nested(MAX_NESTING_DEPTH + 1)}`)).toBe(3 + MAX_NESTING_DEPTH - 1);
  });

  it('counts block collections, compact sequences and keys', () => {
    expect(findDeepNesting('a:\n  b:\n    - - 1\n', 3)).toBe(14);
    expect(findDeepNesting('a:\n  b:\n    - 1\n', 3)).toBeUndefined();
    expect(findDeepNesting('? [[1]]\n: x\n', 2)).toBe(3);
  });

  it('reads 20,000 levels (ten times what recursive parsers survive) without overflowing the stack', () => {
    expect(findDeepNesting(nested(20_000))).toBe(MAX_NESTING_DEPTH);
    expect(findDeepNesting(`${'- '.repeat(20_000)}1`)).toBe(2 * MAX_NESTING_DEPTH);
  });
});

describe('findJsonSyntaxError and nesting', () => {
  it('refuses JSON nested deeper than the limit, at the bracket too deep', () => {
    expect(findJsonSyntaxError(nested(MAX_NESTING_DEPTH))).toBeUndefined();
    expect(findJsonSyntaxError(nested(100_000))).toEqual({
      offset: MAX_NESTING_DEPTH,
      message: `nested deeper than ${MAX_NESTING_DEPTH} levels`,
    });
  });
});
