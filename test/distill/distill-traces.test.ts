/**
 * The summarize stage: `distillTraces` with scripted models (exact cases), the prompted fallback, a
 * summarizer that never finishes, and the sim rebuilding a reference workflow (mistake=0) or spoiling it (mistake=1).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withDistillSim } from '../../src/distill/distill-sim.js';
import { distillTraces } from '../../src/distill/distill-traces.js';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { withPromptedTools } from '../../src/llm/prompted-tools.js';
import { type ScriptedReplyInput, scriptedModel } from '../../src/llm/scripted-model.js';
import { simModel } from '../../src/llm/sim-model.js';
import type { NewTrace } from '../../src/store/traces.js';
import type { Tool } from '../../src/tools/tool.js';

const sumToN = JSON.parse(
  readFileSync(new URL('../fixtures/workflows/sum-to-n.workflow.json', import.meta.url), 'utf8'),
) as ExecutableWorkflow;
const add: Tool = {
  name: 'add',
  description: 'a + b',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  source: 'test',
  call: async (args) => (args as { a: number }).a + (args as { b: number }).b,
};
const tools = [add];
const trace: NewTrace = {
  traceId: 't-1',
  task: 'Sum the numbers 1 to n with the add tool.',
  taskKey: 'sum_to_n',
  mode: 'react',
  model: 'scripted',
  input: { n: 3 },
  calls: [
    { tool: 'add', args: { a: 0, b: 1 }, ok: true, result: 1, durationMs: 1 },
    { tool: 'add', args: { a: 1, b: 2 }, ok: true, result: 3, durationMs: 1 },
    { tool: 'add', args: { a: 3, b: 3 }, ok: true, result: 6, durationMs: 1 },
  ],
  answer: 6,
  success: true,
  usage: { calls: 4, inputTokens: 10, outputTokens: 10 },
};

/** The reference as graph calls, a few per reply (what a capable model would send). */
function buildingReplies(workflow: ExecutableWorkflow): ScriptedReplyInput[] {
  const ops = { start: 'add_start', end: 'add_end', tool: 'add_tool_node', condition: 'add_condition', set: 'add_set' };
  const calls = [
    ...workflow.nodes.map((node) => {
      const { kind, ...fields } = node as unknown as Record<string, unknown>;
      return kind === 'start'
        ? { name: 'add_start', args: { inputs: workflow.inputs } }
        : { name: ops[kind as keyof typeof ops], args: fields };
    }),
    ...workflow.edges.map((edge) => ({ name: 'add_edge', args: edge })),
  ];
  const replies: ScriptedReplyInput[] = [];
  for (let i = 0; i < calls.length; i += 4) replies.push({ toolCalls: calls.slice(i, i + 4) });
  replies.push({ toolCalls: [{ name: 'finish' }] });
  return replies;
}

const inputs = [0, 1, 4, 7].map((n) => ({ n }));
async function sameOutputs(built: ExecutableWorkflow, reference: ExecutableWorkflow): Promise<boolean> {
  for (const input of inputs) {
    const expected = await runWorkflow(reference, { tools, input });
    const actual = await runWorkflow(built, { tools, input }).catch((error: Error) => error.message);
    if (typeof actual === 'string' || actual.output !== expected.output) return false;
  }
  return true;
}

describe('distillTraces', () => {
  it('builds sum-to-n from a scripted model through the graph tools, exactly (ES-ReAct)', async () => {
    const model = scriptedModel(buildingReplies(sumToN));
    const result = await distillTraces({ model, traces: [trace], tools, strategy: 'react' });
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ finished: true, valid: true, mixedCalls: 0, graphCalls: 13, steps: 4 });
    expect(result.workflow).toEqual(sumToN);
    expect(result.usage.calls).toBe(4);
    // The model saw only graph tools, the traces' calls and results, and the business tool as text.
    const first = model.calls[0]!;
    // Numbered by the runtime meter, as a run's calls are.
    expect(first.tag).toEqual({ purpose: 'distill', key: 'sum_to_n', sequence: 0 });
    expect(first.tools?.map((tool) => tool.name)).not.toContain('add');
    expect(first.tools?.map((tool) => tool.name)).toContain('finish');
    const prompt = first.messages[0]!.content;
    expect(prompt).toContain('add {"a":1,"b":2} → 3');
    expect(prompt).toContain('final answer: 6');
    expect(prompt).toContain('- add: a + b');
    expect(first.system).toContain('{% vars.total %}');
    expect(await sameOutputs(result.workflow, sumToN)).toBe(true);
  });

  it('plans first with ES-P&E, parsing a plan wrapped in prose (extract), then builds', async () => {
    const plan = JSON.stringify(sumToN.nodes.map((node) => ({ id: node.id, kind: node.kind })));
    const model = scriptedModel([
      { text: `Here is my plan:\n${plan}\nI will build it now.` },
      ...buildingReplies(sumToN),
    ]);
    const result = await distillTraces({ model, traces: [trace], tools });
    expect(result.finished).toBe(true);
    expect(result.steps).toBe(5);
    expect(model.calls[0]!.tools).toBeUndefined();
    expect(model.calls[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('accepts a plan as { nodes: [...] } after a repair re-prompt, and builds without a plan that never parses', async () => {
    const plan = JSON.stringify({ nodes: sumToN.nodes.map((node) => ({ id: node.id, kind: node.kind })) });
    const repaired = scriptedModel([
      { text: '[{"id": "start", "kind": "beginning"}]' },
      { text: plan },
      ...buildingReplies(sumToN),
    ]);
    const first = await distillTraces({ model: repaired, traces: [trace], tools });
    expect(first).toMatchObject({ finished: true, steps: 6 });
    expect(repaired.calls[1]!.messages.at(-1)!.content).toContain('kind');
    const garbage = scriptedModel([
      { text: 'no plan' },
      { text: 'still none' },
      { text: 'never' },
      ...buildingReplies(sumToN),
    ]);
    const second = await distillTraces({ model: garbage, traces: [trace], tools });
    expect(second).toMatchObject({ finished: true, steps: 7 });
    expect(garbage.calls[3]!.messages.at(-1)!.content).toContain('No usable plan came back');
  });

  it('refuses a business tool in this stage and counts it as a mixed call; an unknown name is a plain error', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }, { name: 'frobnicate' }] },
      ...buildingReplies(sumToN),
    ]);
    const result = await distillTraces({ model, traces: [trace], tools, strategy: 'react' });
    expect(result).toMatchObject({ finished: true, mixedCalls: 1, graphCalls: 13 });
    const results = model.calls[1]!.messages.filter((message) => message.role === 'tool');
    expect(results[0]).toMatchObject({ isError: true });
    expect(results[0]!.content).toContain('add is a business tool: only the graph tools work now');
    expect(results[1]!.content).toContain('There is no tool named "frobnicate"');
  });

  it('parses text-only replies with embedded JSON calls through the prompted fallback, re-prompting a bad one', async () => {
    const calls = buildingReplies(sumToN).flatMap((reply) => reply.toolCalls ?? []);
    const texts: string[] = [];
    for (const call of calls)
      texts.push(`I will call ${call.name} now.\n{"tool": "${call.name}", "args": ${JSON.stringify(call.args ?? {})}}`);
    // A reply with no JSON at all first: the fallback re-prompts with the parse error.
    texts.splice(1, 0, 'Let me think about the graph first.');
    const inner = scriptedModel(texts.map((text) => ({ text })));
    const plain: ChatModel = {
      id: inner.id,
      kind: 'scripted',
      generate: (call, signal) => inner.generate(call, signal),
    };
    const result = await distillTraces({ model: withPromptedTools(plain), traces: [trace], tools, strategy: 'react' });
    expect(result.error).toBeUndefined();
    expect(result.finished).toBe(true);
    expect(result.workflow).toEqual(sumToN);
    expect(inner.calls).toHaveLength(texts.length);
    expect(inner.calls[2]!.messages.at(-1)!.content).toContain('Your previous reply could not be used');
  });

  it('re-prompts a reply without a tool call, naming what is missing, and gives up after a bound', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'add_start', args: {} }] },
      { text: 'I think the workflow is done.', repeat: true },
    ]);
    const result = await distillTraces({ model, traces: [trace], tools, strategy: 'react' });
    expect(result.finished).toBe(false);
    expect(result.error).toContain('without calling finish 4 times');
    expect(result.steps).toBe(5);
    const reprompt = model.calls[2]!.messages.at(-1)!;
    expect(reprompt.role).toBe('user');
    expect(reprompt.content).toContain('Still missing: an end node (add_end)');
  });

  it('stops a summarizer that never finishes at maxSteps, with the partial graph and an error', async () => {
    let n = 0;
    const model = scriptedModel(() => ({
      toolCalls: [{ name: 'add_set', args: { id: `s${n}`, values: { [`v${n++}`]: 1 } } }],
    }));
    const result = await distillTraces({ model, traces: [trace], tools, strategy: 'react', maxSteps: 7 });
    expect(result).toMatchObject({ finished: false, valid: false, steps: 7, graphCalls: 7 });
    expect(model.calls).toHaveLength(7);
    expect(result.error).toBe('no finish after 7 model calls (the step limit); the graph is unfinished');
    expect(result.workflow.nodes).toHaveLength(7);
  });

  it('the sim with mistake=0 rebuilds the reference exactly, with both strategies', async () => {
    for (const strategy of ['react', 'plan-execute'] as const) {
      const model = withDistillSim(simModel({ mistake: 0 }), sumToN);
      const result = await distillTraces({ model, traces: [trace], tools, strategy });
      expect(result.error).toBeUndefined();
      expect(result).toMatchObject({ finished: true, valid: true, mixedCalls: 0, graphCalls: 13 });
      expect(result.workflow).toEqual(sumToN);
      expect(await sameOutputs(result.workflow, sumToN)).toBe(true);
    }
  });

  it('the sim with mistake=1 builds wrong or invalid workflows, makes mixed calls, and is stopped by the step limit', async () => {
    let wrong = 0;
    let mixed = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      const model = withDistillSim(simModel({ mistake: 1, seed }), sumToN);
      const result = await distillTraces({ model, traces: [trace], tools, strategy: 'react', maxSteps: 12 });
      mixed += result.mixedCalls;
      const bad = !result.finished || !result.valid || !(await sameOutputs(result.workflow, sumToN));
      if (bad) wrong++;
      if (!result.finished) expect(result.steps).toBe(12);
    }
    expect(wrong).toBe(5);
    expect(mixed).toBeGreaterThan(0);
  });

  it('the sim rebuilds a reference with every node kind (forEach, a multi-way condition, two ends) exactly', async () => {
    const doubling: ExecutableWorkflow = {
      name: 'double_all',
      inputs: { items: { type: 'array', items: { type: 'number' } } },
      nodes: [
        { id: 'start', kind: 'start' },
        { id: 'init', kind: 'set', values: { count: '{% $count(inputs.items) %}' } },
        {
          id: 'loop',
          kind: 'forEach',
          items: '{% inputs.items %}',
          as: 'x',
          body: 'double',
          result: '{% vars.d %}',
          out: 'doubled',
        },
        { id: 'double', kind: 'tool', tool: 'add', args: { a: '{% vars.x %}', b: '{% vars.x %}' }, out: 'd' },
        { id: 'size', kind: 'condition', expr: '{% vars.count %}' },
        { id: 'none', kind: 'end', output: 'empty' },
        { id: 'done', kind: 'end', output: '{% vars.doubled %}' },
      ],
      edges: [
        { from: 'start', to: 'init' },
        { from: 'init', to: 'loop' },
        { from: 'double', to: 'loop' },
        { from: 'loop', to: 'size' },
        { from: 'size', to: 'none', when: 0 },
        { from: 'size', to: 'done', default: true },
      ],
    };
    const model = withDistillSim(simModel({ mistake: 0 }), doubling);
    const result = await distillTraces({ model, traces: [{ ...trace, taskKey: 'double_all' }], tools });
    expect(result.error).toBeUndefined();
    expect(result.workflow).toEqual(doubling);
    expect((await runWorkflow(result.workflow, { tools, input: { items: [1, 2.5] } })).output).toEqual([2, 5]);
    expect((await runWorkflow(result.workflow, { tools, input: { items: [] } })).output).toBe('empty');
  });

  it('is deterministic for one seed', async () => {
    const run = async () =>
      distillTraces({
        model: withDistillSim(simModel({ mistake: 0.3, seed: 9 }), sumToN),
        traces: [trace],
        tools,
        maxSteps: 15,
      });
    const [a, b] = [await run(), await run()];
    expect(a.workflow).toEqual(b.workflow);
    expect(a.mixedCalls).toBe(b.mixedCalls);
  });
});
