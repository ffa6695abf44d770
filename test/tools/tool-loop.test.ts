import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import type { ChatCall, ChatModel, ChatResult, ToolCallRequest } from '../../src/llm/chat-model.js';
import { loadModuleTools } from '../../src/tools/module-tools.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';
import { runToolLoop, type ToolLoopCall, type ToolLoopOutcome } from '../../src/tools/tool-loop.js';

const MATH = resolve(import.meta.dirname, '../fixtures/tools/math-tools.mjs');

type Reply = { text?: string; toolCalls?: { name: string; args: unknown }[] };

/** Answers each call with the next reply of the list; records every call it got. */
function toolModel(replies: readonly Reply[]): ChatModel & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  let index = 0;
  let ids = 0;
  return {
    id: 'fake:tools',
    kind: 'real',
    toolCalling: 'native',
    calls,
    async generate(call): Promise<ChatResult> {
      calls.push(call);
      const reply = replies[Math.min(index++, replies.length - 1)]!;
      const toolCalls: ToolCallRequest[] | undefined = reply.toolCalls?.map((c) => ({
        id: `call_${ids++}`,
        name: c.name,
        args: c.args,
      }));
      return {
        text: reply.text ?? '',
        usage: { inputTokens: 10, outputTokens: 2 },
        model: 'fake',
        ...(toolCalls ? { toolCalls } : {}),
      };
    },
  };
}

function probe(name: string, call: Tool['call'], extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `${name} probe`,
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    source: 'test',
    call,
    ...extra,
  };
}

const BASE = { system: 'You are a calculator.', messages: [{ role: 'user' as const, content: 'add 2 and 3' }] };

describe('runToolLoop', () => {
  it('runs the tools a model asks for, returns their results to it, and ends on an answer without tool calls', async () => {
    const set = await loadModuleTools(MATH);
    const model = toolModel([
      { toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] },
      {
        toolCalls: [
          { name: 'divide', args: { a: 5, b: 2 } },
          { name: 'round', args: { x: 2.5 } },
        ],
      },
      { text: 'The answer is 2.5' },
    ]);
    const result = await runToolLoop({
      model,
      call: { ...BASE, tag: { purpose: 'execute', key: 't1' } },
      tools: set.tools,
    });
    expect(result.text).toBe('The answer is 2.5');
    expect(result.stoppedBy).toBe('answer');
    expect(result.steps).toBe(3);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 6 });
    expect(result.calls.map((c) => [c.call.sequence, c.call.name, c.outcome])).toEqual([
      [0, 'add', expect.objectContaining({ ok: true, result: { sum: 5 } })],
      [1, 'divide', expect.objectContaining({ ok: true, result: 2.5 })],
      [2, 'round', expect.objectContaining({ ok: true, result: 3 })],
    ]);
    // Every call offered the tools and kept the caller's system prompt and tag.
    expect(model.calls[0]!.tools!.map((t) => t.name).sort()).toEqual(['add', 'divide', 'round']);
    expect(model.calls[0]!.toolChoice).toBe('auto');
    expect(model.calls[2]!.system).toBe(BASE.system);
    expect(model.calls[2]!.tag).toEqual({ purpose: 'execute', key: 't1' });
    // The third call saw the whole conversation: the question, two assistant turns, three tool results in order.
    const seen = model.calls[2]!.messages;
    expect(seen.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'tool']);
    expect(seen[2]).toEqual({ role: 'tool', toolCallId: 'call_0', name: 'add', content: '{"sum":5}' });
    expect(seen[5]).toMatchObject({ toolCallId: 'call_2', content: '3' });
  });

  it('shows the model every mistake and failure as an error result and goes on', async () => {
    const slow = probe(
      'slow',
      (_args, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      { timeoutMs: 20 },
    );
    const broken = probe('broken', async () => {
      throw new Error('the database is down');
    });
    const model = toolModel([
      {
        toolCalls: [
          { name: 'nope', args: {} },
          { name: 'broken', args: '{"n": 1' },
          { name: 'broken', args: { n: 'one' } },
          { name: 'broken', args: { n: 1 } },
          { name: 'slow', args: { n: 1 } },
        ],
      },
      { text: 'I could not do it' },
    ]);
    const result = await runToolLoop({ model, call: BASE, tools: [slow, broken] });
    expect(result.text).toBe('I could not do it');
    const outcomes = result.calls.map((c) => c.outcome);
    expect(outcomes.every((o) => !o.ok)).toBe(true);
    const errors = outcomes.map((o) => (o.ok ? '' : `${o.code} ${o.error}`));
    expect(errors[0]).toBe('BAD_CALL There is no tool named "nope"; the tools are: slow, broken');
    expect(errors[1]).toContain('BAD_CALL broken: the arguments are not a JSON object ({"n": 1)');
    expect(errors[2]).toMatch(/^TOOL broken: .*"n"/);
    expect(errors[3]).toBe('TOOL broken: the database is down');
    expect(errors[4]).toBe('TIMEOUT slow: no result after 20 ms');
    const toolMessages = model.calls[1]!.messages.filter((m) => m.role === 'tool');
    expect(toolMessages).toHaveLength(5);
    expect(toolMessages.every((m) => m.role === 'tool' && m.isError === true)).toBe(true);
  });

  it('does not echo a runaway tool name back whole to the model', async () => {
    const broken = probe('broken', async () => 1);
    const model = toolModel([{ toolCalls: [{ name: 'x'.repeat(100_000), args: {} }] }, { text: 'ok' }]);
    const result = await runToolLoop({ model, call: BASE, tools: [broken] });
    const outcome = result.calls[0]!.outcome;
    expect(outcome.ok ? '' : outcome.error).toBe(`There is no tool named "${'x'.repeat(79)}…; the tools are: broken`);
  });

  it('gives a call id the model repeats a suffix, so every result answers one call', async () => {
    const seen: ChatCall[] = [];
    const replies: ToolCallRequest[][] = [
      [
        { id: 'same', name: 'add', args: { n: 1 } },
        { id: 'same', name: 'add', args: { n: 2 } },
      ],
      [{ id: 'same', name: 'add', args: { n: 3 } }],
    ];
    const model: ChatModel = {
      id: 'fake:dup',
      kind: 'real',
      toolCalling: 'native',
      async generate(call) {
        seen.push(call);
        const toolCalls = replies[seen.length - 1];
        return {
          text: '',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'fake',
          ...(toolCalls ? { toolCalls } : {}),
        };
      },
    };
    const add = probe('add', async (args) => (args as { n: number }).n * 10);
    const result = await runToolLoop({ model, call: BASE, tools: [add] });
    const last = seen[seen.length - 1]!.messages;
    const ids = last.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []).map((c) => c.id) : [],
    );
    expect(ids).toEqual(['same', 'same_2', 'same_3']);
    const answers = last.flatMap((message) =>
      message.role === 'tool' ? [`${message.toolCallId}=${message.content}`] : [],
    );
    expect(answers).toEqual(['same=10', 'same_2=20', 'same_3=30']);
    expect(result.calls.map((record) => record.call.id)).toEqual(['same', 'same_2', 'same_3']);
  });

  it('after maxSteps asks once more with toolChoice none and does not run the calls of that answer', async () => {
    let runs = 0;
    const count = probe('count', async () => ++runs);
    const model = toolModel([{ text: 'calling', toolCalls: [{ name: 'count', args: { n: 1 } }] }]);
    const result = await runToolLoop({ model, call: BASE, tools: [count], maxSteps: 3 });
    expect(runs).toBe(3);
    expect(model.calls).toHaveLength(4);
    expect(model.calls.map((c) => c.toolChoice)).toEqual(['auto', 'auto', 'auto', 'none']);
    expect(result).toMatchObject({ stoppedBy: 'max-steps', steps: 4, text: 'calling' });
    expect(result.calls).toHaveLength(3);
  });

  it('refuses a bad maxSteps and duplicate tool names', async () => {
    const model = toolModel([{ text: 'x' }]);
    const t = probe('t', async () => 1);
    await expect(runToolLoop({ model, call: BASE, tools: [t], maxSteps: 0 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
    await expect(runToolLoop({ model, call: BASE, tools: [t, t] })).rejects.toThrow(/Two tools are named "t"/);
  });

  it('hooks: the start is awaited before the tool runs, the end follows; a replayed call runs nothing', async () => {
    const log: string[] = [];
    const echo = probe('echo', async (args: JsonValue) => {
      log.push(`run ${JSON.stringify(args)}`);
      return args;
    });
    const model = toolModel([
      {
        toolCalls: [
          { name: 'echo', args: { n: 1 } },
          { name: 'echo', args: { n: 2 } },
        ],
      },
      { text: 'done' },
    ]);
    const recorded: ToolLoopOutcome = { ok: true, result: 'from the log', durationMs: 5 };
    const result = await runToolLoop({
      model,
      call: BASE,
      tools: [echo],
      hooks: {
        replay: (call: ToolLoopCall) => (call.sequence === 0 ? recorded : undefined),
        admit: (call) => {
          log.push(`admit ${call.sequence}`);
        },
        onCallStart: async (call) => {
          await new Promise((r) => setTimeout(r, 5));
          log.push(`start ${call.sequence}`);
        },
        onCallEnd: (call, outcome) => {
          log.push(`end ${call.sequence} ${outcome.ok}`);
        },
      },
    });
    expect(log).toEqual(['admit 1', 'start 1', 'run {"n":2}', 'end 1 true']);
    expect(result.calls.map((c) => c.replayed)).toEqual([true, false]);
    expect(model.calls[1]!.messages[2]).toMatchObject({ content: 'from the log' });
  });

  it('a refusal (a budget) or a replay that throws ends the loop with that error; the tool does not run', async () => {
    let runs = 0;
    const t = probe('t', async () => ++runs);
    const model = toolModel([{ toolCalls: [{ name: 't', args: { n: 1 } }] }, { text: 'done' }]);
    await expect(
      runToolLoop({
        model,
        call: BASE,
        tools: [t],
        hooks: {
          admit: () => {
            throw new WeftError('BUDGET', 'Budget exhausted: tool call budget of 0 reached');
          },
        },
      }),
    ).rejects.toMatchObject({ code: 'BUDGET' });
    await expect(
      runToolLoop({
        model: toolModel([{ toolCalls: [{ name: 't', args: { n: 1 } }] }]),
        call: BASE,
        tools: [t],
        hooks: {
          replay: () => {
            throw new WeftError('TOOL', 'tool call t#0 may have run; not repeated');
          },
        },
      }),
    ).rejects.toThrow('may have run; not repeated');
    expect(runs).toBe(0);
  });

  it("a refusal in the middle of one answer's calls ends the loop only after the calls already running have ended and been recorded", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const slow = probe('slow', async () => {
      order.push('slow started');
      await released;
      return 'done';
    });
    let admitted = 0;
    const model = toolModel([
      {
        toolCalls: [
          { name: 'slow', args: { n: 1 } },
          { name: 'slow', args: { n: 2 } },
        ],
      },
      { text: 'never' },
    ]);
    const loop = runToolLoop({
      model,
      call: BASE,
      tools: [slow],
      hooks: {
        admit: () => {
          if (admitted++ >= 1) throw new WeftError('BUDGET', 'Budget exhausted: tool call budget of 1 reached');
        },
        onCallEnd: (call, outcome) => {
          order.push(`end #${call.sequence} ${outcome.ok}`);
        },
      },
    }).catch((error: unknown) => {
      order.push('loop ended');
      throw error;
    });
    // Every pending reaction runs before this: a loop that ended without waiting has ended by now.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(loop).rejects.toMatchObject({ code: 'BUDGET' });
    expect(order).toEqual(['slow started', 'end #0 true', 'loop ended']);
  });

  it('the caller aborting ends the loop with ABORTED, also during a tool call', async () => {
    const controller = new AbortController();
    const hang = probe('hang', (_args, { signal }) => {
      controller.abort();
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    const model = toolModel([{ toolCalls: [{ name: 'hang', args: { n: 1 } }] }, { text: 'never' }]);
    await expect(runToolLoop({ model, call: BASE, tools: [hang], signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    expect(model.calls).toHaveLength(1);
  });

  it('without tools it is one plain model call', async () => {
    const model = toolModel([{ text: 'plain' }]);
    const result = await runToolLoop({ model, call: BASE, tools: [] });
    expect(result).toMatchObject({ text: 'plain', steps: 1, stoppedBy: 'answer' });
    expect(model.calls[0]!.tools).toBeUndefined();
  });
});

describe('runToolLoop against a runaway model', () => {
  it('runs at most 32 calls from one answer; the rest come back as errors without running', async () => {
    let runs = 0;
    const count = probe('count', async () => ++runs);
    const model = toolModel([
      { toolCalls: Array.from({ length: 40 }, () => ({ name: 'count', args: { n: 1 } })) },
      { text: 'done' },
    ]);
    const result = await runToolLoop({ model, call: BASE, tools: [count] });
    expect(runs).toBe(32);
    expect(result.calls).toHaveLength(40);
    expect(result.calls[39]!.outcome).toMatchObject({
      ok: false,
      code: 'BAD_CALL',
      error: 'Not run: at most 32 tool calls are run from one answer (this one asked for 40)',
    });
  });
});
