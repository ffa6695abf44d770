import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { levels } from '../../src/graph/index.js';
import { randomDag, randomDagJson } from '../../bench/random-dag.js';
import { formatReport, meetsGoal } from '../../bench/report.js';
import { checkSchedule } from '../../bench/schedule-check.js';
import { percentile, summarize } from '../../bench/stats.js';
import { superstepBound } from '../../bench/superstep-bound.js';
import { workflowOf } from '../graph/workflow-fixtures.js';

describe('randomDagJson', () => {
  it('is deterministic, has 20–200 subtasks and only edges from a lower to a higher index', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seed) => {
        const json = randomDagJson(seed);
        expect(randomDagJson(seed)).toStrictEqual(json);
        expect(json.subtasks.length).toBeGreaterThanOrEqual(20);
        expect(json.subtasks.length).toBeLessThanOrEqual(200);
        const position = new Map(json.subtasks.map((subtask, index) => [subtask.id, index]));
        json.subtasks.forEach((subtask, index) => {
          for (const parent of subtask.dependsOn) expect(position.get(parent)).toBeLessThan(index);
        });
      }),
      { numRuns: 50 },
    );
  });

  it('has exactly the requested depth', () => {
    for (const depth of [1, 3, 10, 40]) expect(randomDag(7, { nodes: 80, depth }).depth).toBe(depth);
  });

  it('seeds latencies per subtask, independently of the shape', () => {
    const dag = randomDag(3);
    expect(randomDag(3).latencyMs).toStrictEqual(dag.latencyMs);
    for (const latency of dag.latencyMs.values()) expect(latency).toBeGreaterThan(0);
  });
});

describe('stats', () => {
  it('takes nearest-rank percentiles', () => {
    const samples = [5, 1, 4, 2, 3];
    expect(percentile(samples, 0.5)).toBe(3);
    expect(percentile(samples, 0.95)).toBe(5);
    expect(percentile(samples, 0)).toBe(1);
    expect(summarize(samples)).toStrictEqual({ count: 5, mean: 3, p50: 3, p95: 5, max: 5 });
    expect(() => percentile([], 0.5)).toThrow(RangeError);
  });
});

describe('checkSchedule', () => {
  const workflow = workflowOf({ a: [], b: [], c: ['a', 'b'] });

  it('accepts a schedule that respects every edge', () => {
    const spans = [
      { id: 'a', start: 0, end: 5 },
      { id: 'b', start: 0, end: 7 },
      { id: 'c', start: 7, end: 9 },
    ];
    expect(checkSchedule(workflow, spans)).toStrictEqual({ ok: true, problems: [] });
  });

  it('reports early starts, repeats and missing subtasks', () => {
    const spans = [
      { id: 'a', start: 0, end: 5 },
      { id: 'a', start: 5, end: 6 },
      { id: 'c', start: 4, end: 9 },
    ];
    expect(checkSchedule(workflow, spans).problems).toStrictEqual([
      'a ran 2 times',
      'b ran 0 times',
      'c started before its parent a ended',
    ]);
  });
});

describe('superstepBound', () => {
  it('sums the slowest latency of each longest-path level', () => {
    const workflow = workflowOf({ a: [], b: [], c: ['a'], d: ['b', 'c'] });
    const durations: Record<string, number> = { a: 1, b: 10, c: 2, d: 3 };
    expect(levels(workflow)).toStrictEqual([['a', 'b'], ['c'], ['d']]);
    expect(superstepBound(workflow, (id) => durations[id] ?? 0)).toBe(10 + 2 + 3);
  });
});

describe('report', () => {
  it('marks each goal PASS or MISS', () => {
    expect(meetsGoal(1.05, { comparison: '<=', target: 1.05 })).toBe(true);
    expect(meetsGoal(1000, { comparison: '<', target: 1000 })).toBe(false);
    const text = formatReport({
      title: 'demo',
      rows: [
        { label: 'ratio', value: 0.5, goal: { comparison: '<=', target: 0.7 } },
        { label: 'time', value: 1500, unit: 'ms', goal: { comparison: '<', target: 1000 } },
      ],
      notes: ['a note'],
    });
    expect(text).toMatch(/ratio\s+0\.500\s+<= 0\.700\s+PASS/);
    expect(text).toMatch(/time\s+1500 ms\s+< 1000 ms\s+MISS/);
    expect(text).toContain('  a note');
  });
});
