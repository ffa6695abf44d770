/** The execute stage against a runaway model and tool: whatever they send, the trace is still saved and read back. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distillTraces } from '../../src/distill/distill-traces.js';
import { readTracesFile } from '../../src/distill/read-traces-file.js';
import { solveTask } from '../../src/distill/solve.js';
import { WeftError } from '../../src/errors.js';
import type { ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { MAX_TRACE_VALUE_DEPTH } from '../../src/store/trace-value.js';
import type { JsonValue, Tool } from '../../src/tools/tool.js';

/** `{x: {x: … 1}}`, `levels` deep, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = { x: value };
  return value;
}

/** Each call answers with the next reply (the last one again past the end). */
function replies(list: readonly Omit<ChatResult, 'usage' | 'model'>[]): ChatModel {
  let index = 0;
  return {
    id: 'fake:runaway',
    kind: 'real',
    toolCalling: 'native',
    async generate(): Promise<ChatResult> {
      const reply = list[Math.min(index++, list.length - 1)] as Omit<ChatResult, 'usage' | 'model'>;
      return { ...reply, usage: { inputTokens: 1, outputTokens: 1 }, model: 'fake' };
    },
  };
}

const echo: Tool = {
  name: 'echo',
  description: 'Returns a deeply nested value',
  inputSchema: { type: 'object' },
  source: 'test',
  maxResultBytes: 1_000_000,
  async call(): Promise<JsonValue> {
    return nested(2_000) as JsonValue;
  },
};

describe('solveTask with runaway values', () => {
  it('keeps 5,000-level and 1 MB arguments, a deep result and a deep answer as text, so the trace is stored', async () => {
    const model = replies([
      {
        text: '',
        toolCalls: [
          { id: 'c1', name: 'echo', args: nested(5_000) },
          { id: 'c2', name: 'echo', args: { blob: 'x'.repeat(1_000_000) } },
          { id: 'c3', name: 'echo', args: {} },
        ],
      },
      { text: `${'['.repeat(3_000)}${']'.repeat(3_000)}` },
    ]);
    const trace = await solveTask({ model, tools: [echo], task: 'T', input: {} });
    expect(trace.calls).toHaveLength(3);
    expect(trace.calls[0]?.args).toBe(`[not kept: nested deeper than ${MAX_TRACE_VALUE_DEPTH} levels]`);
    expect(trace.calls[1]?.args).toMatch(/^\{"blob":"x{10}.*… \[cut: 1,000,011 characters\]$/);
    expect(String(trace.calls[1]?.args).length).toBeLessThan(100_100);
    expect(trace.calls[2]?.result).toBe(`[not kept: nested deeper than ${MAX_TRACE_VALUE_DEPTH} levels]`);
    expect(trace.answer).toBe(`[not kept: nested deeper than ${MAX_TRACE_VALUE_DEPTH} levels]`);

    const folder = mkdtempSync(join(tmpdir(), 'weft-solve-hostile-'));
    const store = openSqliteRunStore(join(folder, 'weft.db'));
    try {
      await store.saveTrace(trace);
      const stored = await store.getTrace(trace.traceId);
      expect(stored?.calls).toEqual(trace.calls);
      // What `weft traces show --json` prints reads back for `weft distill --traces`.
      const file = join(folder, 'trace.json');
      writeFileSync(file, JSON.stringify({ traces: [stored] }));
      expect((await readTracesFile(file)).map((read) => read.traceId)).toEqual([trace.traceId]);
    } finally {
      await store.close();
    }
  });

  it('keeps values within the limits as they are', async () => {
    const model = replies([
      { text: '', toolCalls: [{ id: 'c1', name: 'echo', args: nested(MAX_TRACE_VALUE_DEPTH) }] },
      { text: JSON.stringify(nested(MAX_TRACE_VALUE_DEPTH)) },
    ]);
    const trace = await solveTask({ model, tools: [echo], task: 'T', input: {} });
    expect(trace.calls[0]?.args).toEqual(nested(MAX_TRACE_VALUE_DEPTH));
    expect(trace.answer).toEqual(nested(MAX_TRACE_VALUE_DEPTH));
  });
});

/** Replies with `first`, then aborts `controller` on the next call (Ctrl-C while the model thinks). */
function abortingModel(first: Omit<ChatResult, 'usage' | 'model'>, controller: AbortController): ChatModel {
  let calls = 0;
  return {
    id: 'fake:interrupted',
    kind: 'real',
    toolCalling: 'native',
    async generate(): Promise<ChatResult> {
      if (calls++ === 0) return { ...first, usage: { inputTokens: 1, outputTokens: 1 }, model: 'fake' };
      const reason = new WeftError('ABORTED', 'cancelled by the user');
      controller.abort(reason);
      throw reason;
    },
  };
}

const constant: Tool = {
  name: 'constant',
  description: 'Returns 7',
  inputSchema: { type: 'object' },
  source: 'test',
  async call(): Promise<JsonValue> {
    return 7;
  },
};

describe('an abort during the stages', () => {
  const toolCall = { text: '', toolCalls: [{ id: 'c1', name: 'constant', args: {} }] };

  it('solveTask keeps the calls made so far with keepOnAbort, and throws the abort without it', async () => {
    const kept = new AbortController();
    const trace = await solveTask({
      model: abortingModel(toolCall, kept),
      tools: [constant],
      task: 'T',
      input: {},
      signal: kept.signal,
      keepOnAbort: true,
    });
    expect(trace.success).toBe(false);
    expect(trace.error).toContain('cancelled');
    expect(trace.calls.map((call) => [call.tool, call.result])).toEqual([['constant', 7]]);
    const thrown = new AbortController();
    await expect(
      solveTask({
        model: abortingModel(toolCall, thrown),
        tools: [constant],
        task: 'T',
        input: {},
        signal: thrown.signal,
      }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('distillTraces returns the unfinished graph with keepOnAbort, and throws the abort without it', async () => {
    const traces = [
      {
        traceId: 't-1',
        task: 'T',
        mode: 'react' as const,
        model: 'm',
        input: {},
        calls: [],
        answer: 7,
        success: true,
        usage: { calls: 1, inputTokens: 1, outputTokens: 1 },
      },
    ];
    const start = { text: '', toolCalls: [{ id: 'g1', name: 'add_start', args: {} }] };
    const kept = new AbortController();
    const result = await distillTraces({
      model: abortingModel(start, kept),
      traces,
      tools: [constant],
      strategy: 'react',
      signal: kept.signal,
      keepOnAbort: true,
    });
    expect(result.finished).toBe(false);
    expect(result.error).toContain('cancelled');
    expect(result.workflow.nodes.map((node) => node.id)).toEqual(['start']);
    const thrown = new AbortController();
    await expect(
      distillTraces({
        model: abortingModel(start, thrown),
        traces,
        tools: [constant],
        strategy: 'react',
        signal: thrown.signal,
      }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('secret arguments', () => {
  it('are redacted wherever the trace holds them: the input, an echoing result or error, other calls, the answer', async () => {
    const verify: Tool = {
      name: 'verify',
      description: 'Checks a PIN',
      inputSchema: { type: 'object', properties: { account: { type: 'string' }, pin: { type: 'string' } } },
      secretArgs: ['pin'],
      source: 'test',
      async call(args): Promise<JsonValue> {
        const { pin } = args as { pin: string };
        if (pin !== 'PX8421') throw new Error(`PIN ${pin} is wrong`);
        return { ok: true, echo: `checked ${pin}`, short: 7 };
      },
    };
    const note: Tool = { ...constant, name: 'note', inputSchema: { type: 'object' } };
    // Secrets no id or timestamp can contain: a trace id is digits and lower-case hex.
    const model = replies([
      {
        text: '',
        toolCalls: [
          { id: 'c1', name: 'verify', args: { account: 'A-1', pin: 'QZ1111' } },
          { id: 'c2', name: 'verify', args: { account: 'A-1', pin: 'PX8421' } },
          { id: 'c3', name: 'note', args: { text: 'the pin PX8421 worked' } },
        ],
      },
      { text: '{"verified": true, "pin": "PX8421"}' },
    ]);
    const trace = await solveTask({
      model,
      tools: [verify, note],
      task: 'Verify account A-1',
      input: { account: 'A-1', pin: 'PX8421' },
    });
    const text = JSON.stringify(trace);
    expect(text).not.toContain('PX8421');
    expect(text).not.toContain('QZ1111');
    expect(trace.input).toEqual({ account: 'A-1', pin: '[redacted]' });
    expect(trace.calls.map((call) => call.error ?? call.result)).toEqual([
      expect.stringContaining('PIN [redacted] is wrong'),
      { ok: true, echo: 'checked [redacted]', short: 7 },
      7,
    ]);
    expect(trace.calls[2]?.args).toEqual({ text: 'the pin [redacted] worked' });
    expect(trace.answer).toEqual({ verified: true, pin: '[redacted]' });
    expect(trace.calls.every((call) => typeof call.durationMs === 'number')).toBe(true);
  });
});

describe('a reply with many tool calls', () => {
  it('runs 32 of 1,000 with a signal and no listener-leak warning on stderr', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const toolCalls = Array.from({ length: 1_000 }, (_, index) => ({ id: `c${index}`, name: 'constant', args: {} }));
      const trace = await solveTask({
        model: replies([{ text: '', toolCalls }, { text: '7' }]),
        tools: [constant],
        task: 'T',
        input: {},
        signal: new AbortController().signal,
      });
      expect(trace.calls).toHaveLength(32);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
