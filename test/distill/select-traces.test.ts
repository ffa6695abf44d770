/** Trace selection: random_success, all_success, all (the FlowMind paper's rules) and first. */
import { describe, expect, it } from 'vitest';
import { selectTraces } from '../../src/distill/select-traces.js';
import type { NewTrace } from '../../src/store/traces.js';

const trace = (traceId: string, success: boolean): NewTrace => ({
  traceId,
  task: 't',
  mode: 'react',
  model: 'sim',
  input: {},
  calls: [],
  success,
  ...(success ? {} : { error: 'wrong answer' }),
  usage: { calls: 1, inputTokens: 0, outputTokens: 0 },
});
const traces = [trace('t-a', false), trace('t-b', true), trace('t-c', true), trace('t-d', true)];

describe('selectTraces', () => {
  it('first takes the first trace, successful or not', () => {
    expect(selectTraces(traces, 'first').map((t) => t.traceId)).toEqual(['t-a']);
  });

  it('all takes every trace in order, failed ones included, and needs no successful one', () => {
    expect(selectTraces(traces, 'all').map((t) => t.traceId)).toEqual(['t-a', 't-b', 't-c', 't-d']);
    expect(selectTraces([trace('t-x', false)], 'all').map((t) => t.traceId)).toEqual(['t-x']);
  });

  it('all_success takes every successful trace in order', () => {
    expect(selectTraces(traces, 'all_success').map((t) => t.traceId)).toEqual(['t-b', 't-c', 't-d']);
  });

  it('random_success (the default) draws one successful trace by the seed, whatever the order given', () => {
    const drawn = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const [one] = selectTraces(traces, undefined, seed);
      expect(one!.success).toBe(true);
      expect(selectTraces([...traces].reverse(), 'random_success', seed)[0]!.traceId).toBe(one!.traceId);
      drawn.add(one!.traceId);
    }
    expect(drawn.size).toBeGreaterThan(1);
  });

  it('says clearly when no trace is successful, or there are none', () => {
    expect(() => selectTraces([trace('t-x', false)], 'random_success')).toThrow(
      'random_success needs a successful trace, and none of the 1 is (t-x: wrong answer)',
    );
    expect(() => selectTraces([trace('t-x', false)], 'all_success')).toThrow('all_success needs a successful trace');
    expect(() => selectTraces([], 'first')).toThrow('no traces to summarize');
    expect(() => selectTraces(traces, 'best' as never)).toThrow('unknown trace selection "best"');
  });
});
