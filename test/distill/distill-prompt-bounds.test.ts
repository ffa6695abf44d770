/** The summarize prompt stays bounded, whatever the traces hold. */
import { describe, expect, it } from 'vitest';
import { distillUserPrompt, MAX_TRACE_PROMPT_CHARS } from '../../src/distill/distill-prompt.js';
import type { NewTrace } from '../../src/store/traces.js';

const NOTE = 'x'.repeat(5_000);
const callLists = new Map<number, NewTrace['calls']>();
/** The calls of a trace: one list per length, shared (10,000 traces of their own would take gigabytes). */
function callsOf(count: number): NewTrace['calls'] {
  let calls = callLists.get(count);
  if (!calls) {
    calls = Array.from({ length: count }, (_, index) => ({
      tool: 'add',
      args: { a: index, note: NOTE },
      ok: true,
      result: NOTE,
      durationMs: 1,
    }));
    callLists.set(count, calls);
  }
  return calls;
}

function trace(number: number, calls: number): NewTrace {
  return {
    traceId: `t-${number}`,
    task: 'Sum the numbers.',
    mode: 'react',
    model: 'm',
    input: { n: number },
    calls: callsOf(calls),
    answer: number,
    success: true,
    usage: { calls: 1, inputTokens: 1, outputTokens: 1 },
  };
}

describe('distillUserPrompt', () => {
  it('keeps 10,000 traces of 120 large calls within its budget, saying how many are not shown', () => {
    const traces = Array.from({ length: 10_000 }, (_, index) => trace(index, 120));
    const prompt = distillUserPrompt(traces, []);
    expect(prompt.length).toBeLessThan(MAX_TRACE_PROMPT_CHARS + 1_000);
    expect(prompt).toMatch(/… 99\d\d more traces not shown/);
    expect(prompt).toContain('Trace 1 (successful)');
  });

  it('shows the start of one trace of 100,000 calls', () => {
    const prompt = distillUserPrompt([trace(1, 100_000)], []);
    expect(prompt.length).toBeLessThan(MAX_TRACE_PROMPT_CHARS + 1_000);
    expect(prompt).toMatch(/… (99880 more calls|the rest of this trace is not shown)/);
    expect(prompt).not.toContain('more traces not shown');
  });

  it('shows small traces whole', () => {
    const prompt = distillUserPrompt([trace(1, 2), trace(2, 2)], []);
    expect(prompt).toContain('Trace 2 (successful)');
    expect(prompt).toContain('final answer: 2');
  });
});
