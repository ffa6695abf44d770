import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { findCycle, topologicalOrder, topologicalOrders, type Subtask, type Workflow } from '../../src/graph/index.js';
import { workflowOf } from './workflow-fixtures.js';

/** Bypasses the parser, to check that the algorithms still refuse graphs it would have rejected. */
function unchecked(dependencies: Record<string, string[]>): Pick<Workflow, 'subtasks'> {
  const subtasks: Subtask[] = Object.entries(dependencies).map(([id, dependsOn]) => ({
    id,
    objective: id,
    agent: 'w',
    dependsOn,
    status: 'not started',
    attempts: 0,
  }));
  return { subtasks };
}

function errorOf(action: () => unknown): WeftError {
  try {
    action();
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected a WeftError');
}

describe('topologicalOrder', () => {
  it('takes the ready subtask that comes first in the input', () => {
    // Input order c, a, b, d; a and b are sources; once a is done, c (input position 0) beats b.
    const workflow = workflowOf({ c: ['a'], a: [], b: [], d: ['a', 'b'] });
    expect(topologicalOrder(workflow)).toStrictEqual(['a', 'c', 'b', 'd']);
  });

  it('keeps input order for independent subtasks and handles a single subtask', () => {
    expect(topologicalOrder(workflowOf({ z: [], y: [], x: [] }))).toStrictEqual(['z', 'y', 'x']);
    expect(topologicalOrder(workflowOf({ only: [] }))).toStrictEqual(['only']);
  });

  it('refuses a cycle, naming it, and an unknown dependency', () => {
    const cycle = errorOf(() => topologicalOrder(unchecked({ a: ['b'], b: ['a'], c: [] })));
    expect(cycle.code).toBe('PLAN_INVALID');
    expect(cycle.message).toBe('cycle: a -> b -> a');
    expect(errorOf(() => topologicalOrder(unchecked({ a: ['a'] }))).message).toBe('cycle: a -> a');
    const unknown = errorOf(() => topologicalOrder(unchecked({ a: ['ghost'] })));
    expect(unknown.code).toBe('PLAN_INVALID');
    expect(unknown.message).toBe('subtask "a" depends on unknown subtask "ghost"');
  });

  it('refuses duplicate ids in a hand-built workflow', () => {
    const workflow = { subtasks: [...unchecked({ a: [] }).subtasks, ...unchecked({ a: [] }).subtasks] };
    expect(errorOf(() => topologicalOrder(workflow)).message).toBe('duplicate subtask id "a"');
  });
});

describe('topologicalOrders', () => {
  it('lists both orders of a diamond, the Kahn order first', () => {
    const diamond = workflowOf({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'] });
    expect(topologicalOrders(diamond, 20)).toStrictEqual([
      ['a', 'b', 'c', 'd'],
      ['a', 'c', 'b', 'd'],
    ]);
  });

  it('enumerates in a fixed order and stops at the limit', () => {
    const independent = workflowOf({ x: [], y: [], z: [] });
    const all = [
      ['x', 'y', 'z'],
      ['x', 'z', 'y'],
      ['y', 'x', 'z'],
      ['y', 'z', 'x'],
      ['z', 'x', 'y'],
      ['z', 'y', 'x'],
    ];
    expect(topologicalOrders(independent, Infinity)).toStrictEqual(all);
    expect(topologicalOrders(independent, 4)).toStrictEqual(all.slice(0, 4));
    expect(topologicalOrders(independent, 1)).toStrictEqual([topologicalOrder(independent)]);
  });

  it('returns the only order of a chain', () => {
    expect(topologicalOrders(workflowOf({ c: ['b'], b: ['a'], a: [] }), 20)).toStrictEqual([['a', 'b', 'c']]);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects limit %s', (limit) => {
    const error = errorOf(() => topologicalOrders(workflowOf({ a: [] }), limit));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toMatch(/^limit expects an integer >= 1, got /);
    expect(error.location).toEqual({ field: 'limit' });
  });

  it('refuses a cycle', () => {
    expect(errorOf(() => topologicalOrders(unchecked({ a: ['c'], b: ['a'], c: ['b'] }), 5)).message).toBe(
      'cycle: a -> b -> c -> a',
    );
  });
});

describe('findCycle', () => {
  it('returns undefined for an acyclic graph', () => {
    expect(
      findCycle(
        ['a', 'b', 'c'],
        [
          ['a', 'b'],
          ['b', 'c'],
          ['a', 'c'],
        ],
      ),
    ).toBeUndefined();
    expect(findCycle([], [])).toBeUndefined();
  });

  it('lists the cycle in edge direction from its earliest node', () => {
    const edges = [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
    ] as const;
    expect(findCycle(['a', 'b', 'c'], edges)).toStrictEqual(['a', 'b', 'c']);
    expect(findCycle(['c', 'b', 'a'], edges)).toStrictEqual(['c', 'a', 'b']);
  });

  it('finds a self-loop and a cycle off the first path', () => {
    expect(findCycle(['a', 'b'], [['b', 'b']])).toStrictEqual(['b']);
    expect(
      findCycle(
        ['s', 'x', 'y', 'z'],
        [
          ['s', 'x'],
          ['x', 'y'],
          ['y', 'z'],
          ['z', 'y'],
        ],
      ),
    ).toStrictEqual(['y', 'z']);
  });

  it('ignores edges that name nodes outside the list', () => {
    expect(
      findCycle(
        ['a'],
        [
          ['a', 'x'],
          ['x', 'a'],
        ],
      ),
    ).toBeUndefined();
  });

  it('handles a long chain without overflowing the stack', () => {
    const nodes = Array.from({ length: 20_000 }, (_, index) => `n${index}`);
    const edges = nodes.slice(1).map((node, index): [string, string] => [nodes[index] ?? '', node]);
    expect(findCycle(nodes, edges)).toBeUndefined();
    expect(findCycle(nodes, [...edges, ['n19999', 'n0']])).toHaveLength(20_000);
  });
});
