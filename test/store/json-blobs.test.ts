/** deflate: a plain value is stored as it is, large strings are split off, and what is not JSON is refused by name. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deflate, inflate } from '../../src/store/json-blobs.js';

const LARGE = 'x'.repeat(5000);

function roundTrip(value: unknown): unknown {
  const { json, refs, blobs } = deflate(value, 'the value');
  return inflate(json, refs, (sha256) => blobs.get(sha256), 'the value');
}

describe('deflate', () => {
  it('reads back any JSON value as it was, with or without large strings in it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, withLarge) => {
        const stored = withLarge ? { value, large: [LARGE, { again: LARGE }] } : value;
        // JSON's own reading of the value: -0 becomes 0, as in any stored JSON.
        expect(roundTrip(stored)).toEqual(JSON.parse(JSON.stringify(stored)));
      }),
    );
  });

  it('keeps a plain value as one JSON text, dropping undefined properties and keeping a __proto__ key as data', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": [1, null, "s"]}') as Record<string, unknown>;
    value.gone = undefined;
    const shared = { same: 1 };
    value.twice = [shared, shared];
    const { json, refs, blobs } = deflate(value, 'the value');
    expect(refs).toEqual([]);
    expect(blobs.size).toBe(0);
    expect(json).toBe('{"__proto__":{"polluted":true},"a":[1,null,"s"],"twice":[{"same":1},{"same":1}]}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('splits off a large string and names the field of anything it refuses', () => {
    const { refs, blobs } = deflate({ events: [{ output: LARGE }] }, 'the value');
    expect(refs.map((ref) => ref.path)).toEqual([['events', 0, 'output']]);
    expect([...blobs.values()]).toEqual([LARGE]);
    expect(() => deflate({ a: [1, Number.NaN] }, 'event 2')).toThrow(/Cannot store event 2\.a\[1\]: it is NaN/);
    expect(() => deflate({ when: new Date(0) }, 'event 2')).toThrow(/event 2\.when: it is a Date/);
    expect(() => deflate({ list: [undefined] }, 'event 2')).toThrow(/event 2\.list\[0\]: it is undefined/);
    const cycle: Record<string, unknown> = { name: 'c' };
    cycle.self = { back: cycle };
    expect(() => deflate(cycle, 'event 2')).toThrow(/event 2\.self\.back: it is a circular reference/);
    expect(() => deflate({ run: () => 1 }, 'event 2')).toThrow(/event 2\.run: it is a function/);
  });
});
