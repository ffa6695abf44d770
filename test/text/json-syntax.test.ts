import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from '../../src/text/json-syntax.js';
import { positionAtOffset } from '../../src/text/source-locator.js';

describe('findJsonSyntaxError', () => {
  it('returns undefined for valid JSON', () => {
    expect(findJsonSyntaxError('{"a": [1, -2.5e3, true, null, "\\u00e9\\n"]}')).toBeUndefined();
  });

  it('locates common mistakes', () => {
    expect(findJsonSyntaxError('{"a": 1,}')).toEqual({ offset: 8, message: 'trailing comma before }' });
    expect(findJsonSyntaxError('[1 2]')?.offset).toBe(3);
    expect(findJsonSyntaxError("{'a': 1}")?.offset).toBe(1);
    expect(findJsonSyntaxError('{"a": 1} x')?.offset).toBe(9);
    expect(findJsonSyntaxError('{"a": ')?.message).toMatch(/end of input/);
  });

  it('agrees with JSON.parse on whether a text is valid', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.json().map((j) => j.slice(0, -1)),
        ),
        (text) => {
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          expect(findJsonSyntaxError(text) === undefined).toBe(valid);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('converts offsets to 1-based lines and columns', () => {
    expect(positionAtOffset('ab\ncd\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(positionAtOffset('abc', 0)).toEqual({ line: 1, column: 1 });
  });
});
