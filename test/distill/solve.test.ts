import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { withDistillSim } from '../../src/distill/distill-sim.js';
import { simSolveReply } from '../../src/distill/sim-solve.js';
import { solveTask } from '../../src/distill/solve.js';
import { PLAN_REQUEST, readTaskInput } from '../../src/distill/solve-prompts.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { parseSimOptions } from '../../src/llm/sim-options.js';
import { TRACE_ID_PATTERN } from '../../src/store/traces.js';
import { loadModuleTools } from '../../src/tools/module-tools.js';
import type { JsonValue, Tool, ToolSet } from '../../src/tools/tool.js';

const MATH = resolve(import.meta.dirname, '../fixtures/workflows/math-tools.mjs');
const sumToN = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../fixtures/workflows/sum-to-n.workflow.json'), 'utf8'),
) as ExecutableWorkflow;

type Reply = { text?: string; toolCalls?: { name: string; args: unknown }[] };

/** Answers each call with the next reply of the list (the last one again past the end); records every call. */
function replies(list: readonly Reply[], id = 'fake:solver'): ChatModel & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  let index = 0;
  let ids = 0;
  return {
    id,
    kind: 'real',
    toolCalling: 'native',
    calls,
    async generate(call): Promise<ChatResult> {
      calls.push(call);
      const reply = list[Math.min(index++, list.length - 1)] as Reply;
      const toolCalls = reply.toolCalls?.map((c) => ({ id: `call_${ids++}`, name: c.name, args: c.args }));
      return {
        text: reply.text ?? '',
        usage: { inputTokens: 100, outputTokens: 10 },
        model: 'fake',
        ...(toolCalls ? { toolCalls } : {}),
      };
    },
  };
}

const secretTool: Tool = {
  name: 'lookup',
  description: 'Looks a customer up',
  inputSchema: { type: 'object', properties: { id: { type: 'string' }, apiKey: { type: 'string' } } },
  secretArgs: ['apiKey'],
  source: 'test',
  async call(args) {
    return { id: (args as { id: string }).id, tier: 'gold' };
  },
};

const failing: Tool = {
  name: 'explode',
  description: 'Always fails',
  inputSchema: { type: 'object' },
  source: 'test',
  async call(): Promise<JsonValue> {
    throw new Error('the service is down');
  },
};

let math: ToolSet;
beforeAll(async () => {
  math = await loadModuleTools(MATH);
});
afterAll(async () => {
  await math.close();
});

describe('solveTask, react', () => {
  it('records two tool calls and the JSON answer; the prompt shows the task and the inputs in <task-input>', async () => {
    const model = replies([
      { text: 'First 0 + 1.', toolCalls: [{ name: 'add', args: { a: 0, b: 1 } }] },
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
      { text: '3' },
    ]);
    const trace = await solveTask({
      model,
      tools: math.tools,
      task: 'Sum 1..n',
      input: { n: 2 },
      taskKey: 'sum_to_n',
      expected: 3,
      toolsPath: 'tools.yaml',
    });
    expect(trace).toMatchObject({
      task: 'Sum 1..n',
      taskKey: 'sum_to_n',
      mode: 'react',
      model: 'fake:solver',
      input: { n: 2 },
      toolsPath: 'tools.yaml',
      answer: 3,
      expected: 3,
      success: true,
      usage: { calls: 3, inputTokens: 300, outputTokens: 30 },
    });
    expect(trace.traceId).toMatch(TRACE_ID_PATTERN);
    expect(trace).not.toHaveProperty('error');
    expect(trace.calls.map(({ durationMs: _, ...call }) => call)).toEqual([
      { tool: 'add', args: { a: 0, b: 1 }, ok: true, result: 1, step: 0 },
      { tool: 'add', args: { a: 1, b: 2 }, ok: true, result: 3, step: 1 },
    ]);
    const first = model.calls[0] as ChatCall;
    // The runtime meter numbers the calls (`sequence`), as a run's log does.
    expect(first.tag).toEqual({ purpose: 'solve', key: 'sum_to_n', sequence: 0 });
    expect(first.system).toContain('Sum 1..n');
    expect(readTaskInput(first)).toEqual({ n: 2 });
    expect(first.tools?.map((tool) => tool.name)).toEqual(['add']);
  });

  it('takes the answer from mixed text (the last JSON value, a ```json block)', async () => {
    const model = replies([
      { text: 'I checked {"draft": true} first.\nThe final answer:\n```json\n{"total": 3, "ok": true}\n```\nDone.' },
    ]);
    const trace = await solveTask({ model, tools: [], task: 'T', input: {} });
    expect(trace.answer).toEqual({ total: 3, ok: true });
    expect(trace.success).toBe(true);
    expect(trace.usage.calls).toBe(1);
    expect(trace.calls).toEqual([]);
  });

  it('repairs a broken JSON answer without another call', async () => {
    const model = replies([{ text: 'Answer: {"total": 3,}' }]);
    const trace = await solveTask({ model, tools: [], task: 'T', input: {} });
    expect(trace.answer).toEqual({ total: 3 });
    expect(trace.usage.calls).toBe(1);
  });

  it('re-prompts with the parse error when the answer is not JSON, and keys calls by the trace id without a task key', async () => {
    const model = replies([{ text: 'The total is three.' }, { text: '{"total": 3}' }]);
    const trace = await solveTask({ model, tools: [], task: 'T', input: {}, expected: { total: 3 } });
    expect(trace.answer).toEqual({ total: 3 });
    expect(trace.success).toBe(true);
    expect(trace.usage.calls).toBe(2);
    const second = model.calls[1] as ChatCall;
    expect(second.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('could not be used'),
    });
    expect(second.messages.at(-2)).toEqual({ role: 'assistant', content: 'The total is three.' });
    expect(second.tag).toEqual({ purpose: 'solve', key: trace.traceId, sequence: 1 });
  });

  it('gives up after the bounded re-prompts, with the last reply in the error', async () => {
    const model = replies([{ text: 'no idea' }]);
    const trace = await solveTask({ model, tools: [], task: 'T', input: {} });
    expect(trace.success).toBe(false);
    expect(trace).not.toHaveProperty('answer');
    expect(trace.usage.calls).toBe(3);
    expect(trace.error).toMatch(/^the answer could not be read: no final answer found.*the last reply: "no idea"$/);
  });

  it('ends unsuccessful at the deadline when the model never answers', async () => {
    const model = replies([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }]);
    const trace = await solveTask({ model, tools: math.tools, task: 'T', input: {}, maxSteps: 4 });
    expect(trace.success).toBe(false);
    expect(trace.error).toBe("no answer within 4 model calls (the solve's limit; raise it with --max-steps)");
    expect(model.calls).toHaveLength(4);
    expect(trace.usage.calls).toBe(4);
    // Three tool steps, then the forced answer without tools (whose tool calls are not run).
    expect(trace.calls).toHaveLength(3);
    expect((model.calls[3] as ChatCall).toolChoice).toBe('none');
  });

  it("tells a caller's spent budget from its own step limit", async () => {
    // A model that refuses like a budget further down (a run's or a conversation's meter).
    const model: ChatModel = {
      id: 'fake:spent',
      kind: 'real',
      async generate() {
        throw new WeftError('BUDGET', 'Budget exhausted: call budget of 1 reached');
      },
    };
    const trace = await solveTask({ model, tools: [], task: 'T', input: {}, maxSteps: 4 });
    expect(trace.success).toBe(false);
    expect(trace.error).toBe('stopped by the budget before an answer: Budget exhausted: call budget of 1 reached');
    // The refused call was not made: it is not counted as one of the solve's calls.
    expect(trace.usage.calls).toBe(0);
  });

  it('records tool errors and secret arguments redacted; a wrong answer is unsuccessful', async () => {
    const model = replies([
      {
        toolCalls: [
          { name: 'lookup', args: { id: 'c1', apiKey: 'sk-very-secret' } },
          { name: 'explode', args: {} },
          { name: 'nope', args: {} },
        ],
      },
      { text: '{"tier": "silver"}' },
    ]);
    const trace = await solveTask({
      model,
      tools: [secretTool, failing],
      task: 'T',
      input: { id: 'c1' },
      expected: { tier: 'gold' },
    });
    expect(JSON.stringify(trace)).not.toContain('sk-very-secret');
    expect(trace.calls.map(({ durationMs: _, ...call }) => call)).toEqual([
      {
        tool: 'lookup',
        args: { id: 'c1', apiKey: '[redacted]' },
        ok: true,
        result: { id: 'c1', tier: 'gold' },
        step: 0,
      },
      { tool: 'explode', args: {}, ok: false, error: expect.stringContaining('the service is down'), step: 0 },
      { tool: 'nope', args: {}, ok: false, error: expect.stringContaining('There is no tool named "nope"'), step: 0 },
    ]);
    expect(trace.success).toBe(false);
    expect(trace.answer).toEqual({ tier: 'silver' });
    expect(trace.error).toBe('the answer {"tier":"silver"} is not the expected {"tier":"gold"}');
  });

  it('ends unsuccessful when the model fails, and refuses bad options', async () => {
    const broken: ChatModel = {
      id: 'fake:broken',
      kind: 'real',
      async generate() {
        throw new Error('HTTP 500 from the provider');
      },
    };
    const trace = await solveTask({ model: broken, tools: [], task: 'T', input: {} });
    expect(trace).toMatchObject({ success: false, error: 'the solve failed: HTTP 500 from the provider' });
    await expect(solveTask({ model: broken, tools: [], task: 'T', input: {}, maxSteps: 0 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
    await expect(
      solveTask({ model: broken, tools: [], task: 'T', input: [] as unknown as Record<string, JsonValue> }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT' });
    // An input the store could not keep is refused before any model call.
    let deep: JsonValue = 1;
    for (let depth = 0; depth < 5000; depth += 1) deep = { a: deep };
    const counting = replies([{ text: '1' }]);
    await expect(solveTask({ model: counting, tools: [], task: 'T', input: { deep } })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringContaining('nests deeper than'),
    });
    expect(counting.calls).toHaveLength(0);
  });
});

describe('solveTask, plan-execute', () => {
  it('plans, runs each step as a user message with its own tool loop, then answers; calls carry the plan step', async () => {
    const model = replies([
      { text: 'Plan:\n["add 0 and 1", "add 1 and 2"]' },
      { toolCalls: [{ name: 'add', args: { a: 0, b: 1 } }] },
      { text: 'Got 1.' },
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
      { text: 'Got 3.' },
      { text: '```json\n3\n```' },
    ]);
    const trace = await solveTask({
      model,
      tools: math.tools,
      task: 'Sum 1..n',
      input: { n: 2 },
      mode: 'plan-execute',
    });
    expect(trace).toMatchObject({
      mode: 'plan-execute',
      plan: ['add 0 and 1', 'add 1 and 2'],
      answer: 3,
      success: true,
    });
    expect(trace.calls.map((call) => [call.step, call.result])).toEqual([
      [0, 1],
      [1, 3],
    ]);
    expect(trace.usage.calls).toBe(6);
    const planning = model.calls[0] as ChatCall;
    expect(planning.tools).toBeUndefined();
    expect((planning.messages[0] as { content: string }).content).toContain(PLAN_REQUEST);
    expect((planning.messages[0] as { content: string }).content).toContain('- add: a + b');
    const last = model.calls[5] as ChatCall;
    const users = last.messages.filter((message) => message.role === 'user').map((message) => message.content);
    expect(users.slice(1).map((text) => text.split('\n')[0])).toEqual([
      'Step 1 of 2: add 0 and 1',
      'Step 2 of 2: add 1 and 2',
      expect.stringContaining('All steps are done'),
    ]);
  });

  it('re-prompts for a plan that is not a list of steps, and fails when it never gets one', async () => {
    const model = replies([{ text: '{"plan": "just add"}' }]);
    const trace = await solveTask({ model, tools: math.tools, task: 'T', input: {}, mode: 'plan-execute' });
    expect(trace.success).toBe(false);
    expect(trace.error).toMatch(/^the plan could not be read: the JSON does not match the expected shape/);
    expect(trace.usage.calls).toBe(3);
  });
});

describe('the sim following a reference workflow', () => {
  const sim = async () => withDistillSim(await createModel('sim:seed=3'), sumToN);

  it.each(['react', 'plan-execute'] as const)(
    'solves sum_to_n (%s) with the reference tool calls and the right answer',
    async (mode) => {
      const trace = await solveTask({
        model: await sim(),
        tools: math.tools,
        task: 'Sum the numbers from 1 to n',
        input: { n: 4 },
        mode,
        expected: 10,
      });
      expect(trace).toMatchObject({ success: true, answer: 10 });
      expect(trace.calls.map((call) => [call.args, call.result])).toEqual([
        [{ a: 0, b: 1 }, 1],
        [{ a: 1, b: 2 }, 3],
        [{ a: 3, b: 3 }, 6],
        [{ a: 6, b: 4 }, 10],
      ]);
      if (mode === 'plan-execute')
        expect(trace.plan).toEqual([
          'Check vars.i < inputs.n and go on accordingly',
          'Call add with {"a":"{% vars.acc %}","b":"{% vars.i + 1 %}"} and keep the result as acc',
        ]);
    },
  );

  it('is deterministic and answers at once for n = 0', async () => {
    const a = await solveTask({ model: await sim(), tools: math.tools, task: 'T', input: { n: 3 } });
    const b = await solveTask({ model: await sim(), tools: math.tools, task: 'T', input: { n: 3 } });
    expect(a.calls.map((call) => call.args)).toEqual(b.calls.map((call) => call.args));
    const zero = await solveTask({ model: await sim(), tools: math.tools, task: 'T', input: { n: 0 } });
    expect(zero).toMatchObject({ answer: 0, calls: [], success: true, usage: { calls: 1 } });
  });

  it('with solvefail, rollouts of one input differ (the rollout is the tag attempt) and each is reproducible', async () => {
    const model = withDistillSim(await createModel('sim:seed=3,solvefail=0.25'), sumToN);
    const rollout = (n: number) =>
      solveTask({ model, tools: math.tools, task: 'T', taskKey: 'sum', input: { n: 4 }, expected: 10, rollout: n });
    const first: boolean[] = [];
    for (let n = 1; n <= 12; n++) first.push((await rollout(n)).success);
    expect(first).toContain(true);
    expect(first).toContain(false);
    const again: boolean[] = [];
    for (let n = 1; n <= 12; n++) again.push((await rollout(n)).success);
    expect(again).toEqual(first);
    const failed = await rollout(first.indexOf(false) + 1);
    expect(failed.error).toContain('I lost track after');
    // Without solvefail every rollout follows the reference.
    const faithful = await sim();
    for (let n = 1; n <= 4; n++)
      expect(
        (await solveTask({ model: faithful, tools: math.tools, task: 'T', input: { n: 4 }, expected: 10, rollout: n }))
          .success,
      ).toBe(true);
    await expect(solveTask({ model, tools: [], task: 'T', input: {}, rollout: 0 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { field: 'rollout' },
    });
  });

  it('says it could not finish after a tool error, and the trace is unsuccessful', async () => {
    const brokenAdd: Tool = { ...failing, name: 'add' };
    const trace = await solveTask({ model: await sim(), tools: [brokenAdd], task: 'T', input: { n: 2 }, maxSteps: 10 });
    expect(trace.success).toBe(false);
    expect(trace.calls).toHaveLength(1);
    expect(trace.error).toContain('I could not finish: the tool add failed');
  });

  it('replies from the conversation alone: the next call, the output, a divergence, or no input block', async () => {
    const options = parseSimOptions('sim:');
    const system = '<task-input>\n{"n": 1}\n</task-input>';
    const tools = [{ name: 'add', description: '', inputSchema: {} }];
    expect(
      await simSolveReply({ system, messages: [{ role: 'user', content: 'go' }], tools }, sumToN, options),
    ).toEqual({
      text: '',
      toolCalls: [{ id: 'call_1', name: 'add', args: { a: 0, b: 1 } }],
    });
    const after = [
      { role: 'user' as const, content: 'go' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'x', name: 'add', args: {} }] },
      { role: 'tool' as const, toolCallId: 'x', name: 'add', content: '1' },
    ];
    expect(await simSolveReply({ system, messages: after, tools }, sumToN, options)).toEqual({ text: '1' });
    const wrong = [
      after[0]!,
      { ...after[1]!, toolCalls: [{ id: 'x', name: 'mul', args: {} }] },
      { ...after[2]!, name: 'mul' },
    ];
    expect((await simSolveReply({ system, messages: wrong, tools }, sumToN, options)).text).toContain(
      'the conversation called mul where the reference calls add',
    );
    expect((await simSolveReply({ messages: [], tools }, sumToN, options)).text).toContain('no <task-input> block');
    expect(
      (
        await simSolveReply(
          { system, messages: [{ role: 'user', content: 'go' }], tools, toolChoice: 'none' },
          sumToN,
          options,
        )
      ).text,
    ).toContain('needs the tool add, which this call does not offer');
  });
});
