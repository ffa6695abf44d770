import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { criticalPath } from '../../src/graph/index.js';
import { workflowOf } from './workflow-fixtures.js';

const durationsOf = (durations: Record<string, number>) => (id: string) => durations[id] ?? Number.NaN;

describe('criticalPath', () => {
  it('finds the longest weighted chain', () => {
    const workflow = workflowOf({ a: [], b: [], c: ['a', 'b'], d: ['b', 'c'] });
    // a 3, b 2 → c starts at 3, ends at 7 → d ends at 8.
    expect(criticalPath(workflow, durationsOf({ a: 3, b: 2, c: 4, d: 1 }))).toStrictEqual({
      length: 8,
      path: ['a', 'c', 'd'],
    });
    // A long b makes b → d the critical chain instead.
    expect(criticalPath(workflow, durationsOf({ a: 3, b: 20, c: 4, d: 1 }))).toStrictEqual({
      length: 25,
      path: ['b', 'c', 'd'],
    });
    // b and a zero-length c both finish at 20: d's tie goes to b, earlier in the input.
    expect(criticalPath(workflow, durationsOf({ a: 1, b: 20, c: 0, d: 1 }))).toStrictEqual({
      length: 21,
      path: ['b', 'd'],
    });
  });

  it('is weighted, not the longest chain by count', () => {
    const workflow = workflowOf({ a: [], b: ['a'], c: ['b'], long: [] });
    expect(criticalPath(workflow, durationsOf({ a: 1, b: 1, c: 1, long: 10 }))).toStrictEqual({
      length: 10,
      path: ['long'],
    });
  });

  it('breaks ties by input order', () => {
    const durations = durationsOf({ a: 2, b: 2, c: 1 });
    expect(criticalPath(workflowOf({ a: [], b: [], c: ['a', 'b'] }), durations).path).toStrictEqual(['a', 'c']);
    expect(criticalPath(workflowOf({ b: [], a: [], c: ['a', 'b'] }), durations).path).toStrictEqual(['b', 'c']);
  });

  it('is empty for a workflow without subtasks', () => {
    expect(criticalPath({ subtasks: [] }, () => 1)).toStrictEqual({ length: 0, path: [] });
  });

  it.each([-1, Number.NaN, Infinity])('rejects duration %s', (duration) => {
    const workflow = workflowOf({ a: [] });
    expect(() => criticalPath(workflow, () => duration)).toThrow(WeftError);
    expect(() => criticalPath(workflow, () => duration)).toThrow(
      `Expected the duration of "a" to be a finite number >= 0, got ${duration} (number)`,
    );
  });
});
