import { describe, expect, it } from 'vitest';
import type { ChatCall, ChatMessage, ToolDeclaration } from '../../src/llm/chat-model.js';
import { promptedReplyValidator, withPromptedTools } from '../../src/llm/prompted-tools.js';
import { registerProvider } from '../../src/llm/provider-registry.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { replayFetch } from './providers/replay-fetch.js';
import { rejection } from './providers/rejection.js';
import { sequenceModel } from './fake-models.js';

const TOOLS: ToolDeclaration[] = [
  {
    name: 'get_order',
    description: 'One order by id.',
    inputSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
  { name: 'list_products', description: 'Every product.', inputSchema: { type: 'object', properties: {} } },
];

const QUESTION: ChatMessage = { role: 'user', content: 'Where is order A-1001?' };

describe('prompted tool calls through a recorded OpenAI-compatible server (?tools=prompted)', () => {
  it('offers the tools in the system prompt, re-prompts a wrong tool name, and parses the repaired call', async () => {
    const replay = replayFetch(
      'llama-cpp/chat-completion-prompted-wrong-tool',
      'llama-cpp/chat-completion-prompted-tool',
      'llama-cpp/chat-completion-prompted-answer',
    );
    const model = await createModel('openai-compatible:http://127.0.0.1:8080/v1#tiny?tools=prompted', {
      fetch: replay.fetch,
      env: {},
    });
    expect(model.toolCalling).toBe('prompted');
    expect(model.id).toBe('openai-compatible:http://127.0.0.1:8080/v1#tiny?tools=prompted');

    const first = await model.generate({ system: 'You help with orders.', messages: [QUESTION], tools: TOOLS });
    expect(first.text).toBe('');
    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'get_order', args: { order_id: 'A-1001' } }]);
    // Both calls count.
    expect(first.usage).toEqual({ inputTokens: 402 + 455, outputTokens: 24 + 19 });

    const [wrong, repaired] = replay.requests as { body: Record<string, unknown> }[];
    expect(wrong?.body['tools']).toBeUndefined();
    expect(wrong?.body['tool_choice']).toBeUndefined();
    const messages = wrong?.body['messages'] as { role: string; content: string }[];
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toMatch(/^You help with orders\.\n\nYou can call tools\./);
    expect(messages[0]?.content).toContain('{"tool": "<tool name>", "args": {');
    expect(messages[0]?.content).toContain('{"answer": "<your answer>"}');
    expect(messages[0]?.content).toContain(
      `- get_order: One order by id.\n  args schema: ${JSON.stringify(TOOLS[0]!.inputSchema)}`,
    );
    expect(messages.slice(1)).toEqual([{ role: 'user', content: QUESTION.content }]);
    const repairMessages = repaired?.body['messages'] as { role: string; content: string }[];
    expect(repairMessages.at(-2)?.role).toBe('assistant');
    expect(repairMessages.at(-1)?.content).toContain(
      'there is no tool "get_orders"; the tools are get_order, list_products',
    );

    // Second turn: the call and its result go back as text; the model answers.
    const second = await model.generate({
      system: 'You help with orders.',
      messages: [
        QUESTION,
        { role: 'assistant', content: '', toolCalls: first.toolCalls! },
        { role: 'tool', toolCallId: 'call_1', name: 'get_order', content: '{"id":"A-1001","status":"shipped"}' },
      ],
      tools: TOOLS,
    });
    expect(second).toEqual({
      text: 'Order A-1001 has shipped.',
      usage: { inputTokens: 530, outputTokens: 12 },
      model: '/models/mymodel-Q4_K_M.gguf',
    });
    const third = (replay.requests[2]?.body as { messages: { role: string; content: string }[] }).messages;
    expect(third.slice(1)).toEqual([
      { role: 'user', content: QUESTION.content },
      { role: 'assistant', content: '{"tool":"get_order","args":{"order_id":"A-1001"}}' },
      {
        role: 'user',
        content:
          'Result of tool get_order (call_1):\n{"id":"A-1001","status":"shipped"}\n\n' +
          'Reply with one JSON object: {"tool": ..., "args": ...} for another tool, or {"answer": ...}.',
      },
    ]);
  });

  it('validates the spec option: an unknown option or value is a MODEL_SPEC error naming it', async () => {
    const unknown = await rejection(createModel('ollama:llama3.2:1b?tool=prompted', { env: {} }));
    expect(unknown.code).toBe('MODEL_SPEC');
    expect(unknown.message).toContain('unknown option "tool=prompted"');
    const value = await rejection(createModel('openai-compatible:http://h:1/v1#m?tools=json', { env: {} }));
    expect(value.code).toBe('MODEL_SPEC');
    expect(value.message).toContain('"tools" takes "prompted"');
    // The native default is accepted explicitly and not printed.
    const native = await createModel('ollama:llama3.2:1b?tools=native', { env: {} });
    expect(native.id).toBe('ollama:llama3.2:1b');
    expect(native.toolCalling).toBe('native');
  });
});

describe('withPromptedTools', () => {
  const call = (overrides: Partial<ChatCall> = {}): ChatCall => ({ messages: [QUESTION], tools: TOOLS, ...overrides });

  it('passes calls without tools through unchanged', async () => {
    const inner = sequenceModel(['plain']);
    const model = withPromptedTools(inner);
    const result = await model.generate({ system: 'S', messages: [QUESTION] });
    expect(result.text).toBe('plain');
    expect(inner.calls[0]).toEqual({ system: 'S', messages: [QUESTION] });
  });

  it('asks for the answer schema: one branch per tool with its argument schema, and the answer', async () => {
    const inner = sequenceModel(['{"answer": "hi"}']);
    await withPromptedTools(inner).generate(call());
    expect(inner.calls[0]?.json?.schema).toEqual({
      oneOf: [
        {
          type: 'object',
          properties: { tool: { const: 'get_order' }, args: TOOLS[0]!.inputSchema },
          required: ['tool', 'args'],
        },
        {
          type: 'object',
          properties: { tool: { const: 'list_products' }, args: TOOLS[1]!.inputSchema },
          required: ['tool', 'args'],
        },
        { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
      ],
    });
    expect(inner.calls[0]).not.toHaveProperty('tools');
  });

  it('toolChoice required: an answer is refused and re-prompted; the answer branch is not offered', async () => {
    const inner = sequenceModel(['{"answer": "no idea"}', '{"tool": "list_products"}']);
    const result = await withPromptedTools(inner).generate(call({ toolChoice: 'required' }));
    expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'list_products', args: {} }]);
    expect(inner.calls[0]?.system).toContain('You must call a tool now.');
    expect(inner.calls[0]?.system).not.toContain('"answer"');
    expect(inner.calls[1]?.messages.at(-1)?.content).toContain('a tool must be called now');
  });

  it('toolChoice none: no tools offered, earlier calls still shown as text', async () => {
    const inner = sequenceModel(['Done.']);
    const result = await withPromptedTools(inner).generate(
      call({
        toolChoice: 'none',
        messages: [
          QUESTION,
          {
            role: 'assistant',
            content: 'Checking.',
            toolCalls: [{ id: 'c9', name: 'get_order', args: { order_id: 'A' } }],
          },
          { role: 'tool', toolCallId: 'c9', name: 'get_order', content: 'HTTP 404 not found', isError: true },
        ],
      }),
    );
    expect(result.text).toBe('Done.');
    expect(inner.calls[0]?.system).toBeUndefined();
    expect(inner.calls[0]?.messages).toEqual([
      QUESTION,
      { role: 'assistant', content: 'Checking.\n{"tool":"get_order","args":{"order_id":"A"}}' },
      { role: 'user', content: 'Error from tool get_order (c9):\nHTTP 404 not found' },
    ]);
  });

  it('numbers ids on from the calls already in the conversation', async () => {
    const inner = sequenceModel(['{"tool": "get_order", "args": {"order_id": "B"}}']);
    const result = await withPromptedTools(inner).generate(
      call({
        messages: [
          QUESTION,
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_order', args: { order_id: 'A' } }] },
          { role: 'tool', toolCallId: 'call_1', name: 'get_order', content: 'moved to B' },
        ],
      }),
    );
    expect(result.toolCalls).toEqual([{ id: 'call_2', name: 'get_order', args: { order_id: 'B' } }]);
  });

  it('gives up with a PARSE error after the repairs, quoting the last reply', async () => {
    const inner = sequenceModel(['I think the order shipped.']);
    const error = await rejection(withPromptedTools(inner, { maxRepairs: 1 }).generate(call()));
    expect(error.code).toBe('PARSE');
    expect(error.message).toContain('after 2 attempt(s)');
    expect(inner.calls).toHaveLength(2);
  });

  it('reads what models trained on other formats write, and refuses arguments that are no object', () => {
    const validator = promptedReplyValidator(TOOLS, false);
    expect(validator.parse({ name: 'get_order', arguments: { order_id: 'A' } })).toEqual({
      kind: 'tool',
      name: 'get_order',
      args: { order_id: 'A' },
    });
    expect(validator.parse({ tool: 'get_order', args: '{"order_id": "A"}' })).toMatchObject({
      args: { order_id: 'A' },
    });
    expect(validator.parse({ answer: { total: 3 } })).toEqual({ kind: 'answer', text: '{"total":3}' });
    const bad = validator.safeParse({ tool: 'get_order', args: [1, 2] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('"args" must be a JSON object with the arguments of get_order');
    expect(validator.safeParse({ verdict: 'x' }).error?.issues[0]?.message).toContain('expected a "tool" key');
    expect(validator.safeParse([{ tool: 'get_order' }]).success).toBe(false);
  });

  it('createModel gives a model without native tools (a registered provider that says nothing) the fallback', async () => {
    const inner = sequenceModel(['{"tool": "list_products", "args": {}}']);
    const unregister = registerProvider({
      name: 'plain-test',
      form: 'plain-test:<x>',
      parse: (rest) => ({ provider: 'plain-test', rest }),
      format: () => 'plain-test:x',
      describe: () => 'plain-test:x',
      create: async () => inner,
    });
    try {
      const model = await createModel('plain-test:x', { env: {} });
      expect(model.toolCalling).toBe('prompted');
      const result = await model.generate(call());
      expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'list_products', args: {} }]);
    } finally {
      unregister();
    }
  });

  it('streams nothing while tools are offered (the reply is a JSON object), and passes onStream on without tools', async () => {
    const inner = sequenceModel(['{"answer": "It shipped."}', 'Plain words.']);
    const model = withPromptedTools(inner);
    const onStream = () => {};
    const answered = await model.generate({ messages: [QUESTION], tools: TOOLS, onStream });
    expect(answered.text).toBe('It shipped.');
    expect(inner.calls[0]?.onStream).toBeUndefined();
    await model.generate({ messages: [QUESTION], onStream });
    expect(inner.calls[1]?.onStream).toBe(onStream);
  });
});
