/** The single-stage baselines: one agent with business and graph tools; its trace and mixed calls. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withDistillSim } from '../../src/distill/distill-sim.js';
import { mixedCalls, solveAndBuild } from '../../src/distill/single-stage.js';
import { WeftError } from '../../src/errors.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import { type ScriptedReplyInput, scriptedModel } from '../../src/llm/scripted-model.js';
import { simModel } from '../../src/llm/sim-model.js';
import type { Tool } from '../../src/tools/tool.js';

const sumToN = JSON.parse(
  readFileSync(new URL('../fixtures/workflows/sum-to-n.workflow.json', import.meta.url), 'utf8'),
) as ExecutableWorkflow;
const add: Tool = {
  name: 'add',
  description: 'a + b',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, key: {} } },
  secretArgs: ['key'],
  source: 'test',
  call: async (args) => (args as { a: number }).a + (args as { b: number }).b,
};
const task = { task: 'Sum 1 to n.', taskKey: 'sum_to_n', input: { n: 2 }, tools: [add] };

const graphCalls = () => {
  const ops = { start: 'add_start', end: 'add_end', tool: 'add_tool_node', condition: 'add_condition', set: 'add_set' };
  return [
    ...sumToN.nodes.map((node) => {
      const { kind, ...fields } = node as unknown as Record<string, unknown>;
      return kind === 'start'
        ? { name: 'add_start', args: { inputs: sumToN.inputs } }
        : { name: ops[kind as keyof typeof ops], args: fields };
    }),
    ...sumToN.edges.map((edge) => ({ name: 'add_edge', args: edge })),
    { name: 'finish', args: {} },
  ];
};

describe('solveAndBuild (the ReAct and P&E baselines)', () => {
  it('records the business calls as the trace (secrets redacted) and builds the workflow; execution first is not mixed', async () => {
    const replies: ScriptedReplyInput[] = [
      { toolCalls: [{ name: 'add', args: { a: 0, b: 1, key: 'sk-secret' } }] },
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
      { toolCalls: graphCalls().slice(0, 7) },
      { toolCalls: graphCalls().slice(7) },
      { text: '3' },
    ];
    const { trace, distill } = await solveAndBuild({ ...task, model: scriptedModel(replies), expected: 3 });
    expect(trace).toMatchObject({ taskKey: 'sum_to_n', mode: 'react', answer: 3, success: true, input: { n: 2 } });
    expect(trace.traceId).toMatch(/^t-\d{8}-\d{6}-[0-9a-f]{8}$/);
    expect(trace.calls.map((call) => [call.tool, call.args, call.ok, call.result])).toEqual([
      ['add', { a: 0, b: 1, key: '[redacted]' }, true, 1],
      ['add', { a: 1, b: 2 }, true, 3],
    ]);
    expect(distill).toMatchObject({ finished: true, valid: true, mixedCalls: 0, graphCalls: 13, steps: 5 });
    expect(distill.workflow).toEqual(sumToN);
  });

  it('counts business calls in a reply with graph calls, or after the graph was started, as mixed (P&E plans first)', async () => {
    const replies: ScriptedReplyInput[] = [
      { text: '["add 0 and 1", "build the graph", "add 1 and 2"]' },
      {
        toolCalls: [
          { name: 'add_start', args: {} },
          { name: 'add', args: { a: 0, b: 1 } },
        ],
      },
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
      { text: 'I forgot the graph. The answer is 3.' },
    ];
    const { trace, distill } = await solveAndBuild({ ...task, model: scriptedModel(replies), mode: 'plan-execute' });
    expect(trace.plan).toEqual(['add 0 and 1', 'build the graph', 'add 1 and 2']);
    expect(trace.calls).toHaveLength(2);
    expect(trace).toMatchObject({ answer: 3, success: true });
    expect(distill).toMatchObject({ finished: false, mixedCalls: 2, graphCalls: 1 });
    expect(distill.error).toContain('never called finish');
  });

  it('defines mixed calls per reply and order', () => {
    const b = (step: number, sequence: number) => ({ step, sequence, graph: false });
    const g = (step: number, sequence: number) => ({ step, sequence, graph: true });
    expect(mixedCalls([b(0, 0), b(1, 1), g(2, 2), g(2, 3)])).toBe(0);
    expect(mixedCalls([b(0, 0), g(0, 1)])).toBe(1);
    expect(mixedCalls([g(0, 0), b(1, 1), b(1, 2)])).toBe(2);
    expect(mixedCalls([b(0, 0), b(1, 1)])).toBe(0);
  });

  it('refuses a business tool named like a graph tool, and ends at the step limit with an unsuccessful trace', async () => {
    await expect(
      solveAndBuild({ ...task, tools: [{ ...add, name: 'finish' }], model: scriptedModel([]) }),
    ).rejects.toThrow('has the name of a graph tool');
    const looping = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }], repeat: true }]);
    const { trace, distill } = await solveAndBuild({ ...task, model: looping, maxSteps: 3 });
    expect(trace).toMatchObject({ success: false, error: 'no final answer after 3 model calls (the step limit)' });
    expect(trace.calls).toHaveLength(3);
    expect(distill.steps).toBe(3);
  });

  it("ends with its work kept when the caller's model refuses with BUDGET, not counting the refused call", async () => {
    const looping = scriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }], repeat: true }]);
    let calls = 0;
    // A caller's budget of two calls further down (a command's --max-calls).
    const budgeted = {
      ...looping,
      async generate(call: Parameters<typeof looping.generate>[0], signal?: AbortSignal) {
        if (calls >= 2) throw new WeftError('BUDGET', 'Budget exhausted: call budget of 2 reached');
        calls += 1;
        return looping.generate(call, signal);
      },
    };
    const { trace, distill } = await solveAndBuild({ ...task, model: budgeted, maxSteps: 10 });
    expect(trace).toMatchObject({
      success: false,
      error: 'stopped by the budget: Budget exhausted: call budget of 2 reached',
    });
    expect(trace.calls).toHaveLength(2);
    expect(trace.usage.calls).toBe(2);
    expect(distill).toMatchObject({ finished: false, steps: 2 });
  });

  it('the sim follows the reference business calls in a single-stage conversation, builds it, then answers', async () => {
    const model = withDistillSim(simModel({ mistake: 0 }), sumToN);
    const { distill, trace } = await solveAndBuild({ ...task, model, expected: 3 });
    expect(trace.calls.map((call) => [call.tool, call.args, call.result])).toEqual([
      ['add', { a: 0, b: 1 }, 1],
      ['add', { a: 1, b: 2 }, 3],
    ]);
    expect(trace).toMatchObject({ answer: 3, success: true });
    expect(distill).toMatchObject({ finished: true, valid: true, mixedCalls: 0, graphCalls: 13 });
    expect(distill.workflow).toEqual(sumToN);
    // P&E: the plan call first; with mistakes, business calls among the graph calls count as mixed.
    let mixed = 0;
    for (const seed of [1, 2, 3, 4]) {
      const spoilt = withDistillSim(simModel({ mistake: 1, seed }), sumToN);
      const result = await solveAndBuild({ ...task, model: spoilt, mode: 'plan-execute', maxSteps: 20 });
      expect(result.trace.calls.slice(0, 2).map((call) => call.result)).toEqual([1, 3]);
      expect(result.trace.plan).toEqual([
        'call add with {"a":"{% vars.acc %}","b":"{% vars.i + 1 %}"}',
        'build the workflow sum_to_n with the graph tools',
      ]);
      mixed += result.distill.mixedCalls;
    }
    expect(mixed).toBeGreaterThan(0);
  });
});
