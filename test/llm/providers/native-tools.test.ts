/**
 * Native tool calling through each provider's recorded wire format: the tools and tool_choice a request carries,
 * the second turn carrying the results under the right ids, and the tool calls parsed out of the reply.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCall, ChatMessage, ToolDeclaration } from '../../../src/llm/chat-model.js';
import { createAnthropicModel } from '../../../src/llm/providers/anthropic.js';
import { createOpenAICompatibleModel } from '../../../src/llm/providers/openai-compatible.js';
import { createModel } from '../../../src/llm/resolve-model.js';
import { rejection } from './rejection.js';
import { replayFetch } from './replay-fetch.js';

const TOOLS: ToolDeclaration[] = [
  {
    name: 'get_order',
    description: 'One order by id.',
    inputSchema: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
  {
    name: 'search_orders',
    description: 'Orders of a customer.',
    inputSchema: {
      type: 'object',
      properties: { customer: { type: 'string' }, status: { enum: ['open', 'closed'] } },
      required: ['customer'],
    },
  },
];

const QUESTION: ChatMessage = { role: 'user', content: 'Where is order A-1001, and does Ada have other open orders?' };

function openaiModel(fetch: typeof globalThis.fetch, baseURL = 'https://api.openai.com/v1', id = 'openai:gpt-4o-mini') {
  return createOpenAICompatibleModel({ id, model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL, fetch });
}

describe('OpenAI function calling (recorded fixtures)', () => {
  it('sends tools and tool_choice, parses parallel tool calls, and sends the results back by id', async () => {
    const replay = replayFetch('openai/chat-completion-tool-calls', 'openai/chat-completion-after-tools');
    const model = openaiModel(replay.fetch);
    expect(model.toolCalling).toBe('native');

    const first = await model.generate({
      system: 'You answer questions about orders.',
      messages: [QUESTION],
      tools: TOOLS,
      toolChoice: 'required',
    });
    expect(replay.requests[0]?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You answer questions about orders.' },
        { role: 'user', content: QUESTION.content },
      ],
      tools: TOOLS.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      })),
      tool_choice: 'required',
    });
    expect(first.text).toBe('');
    expect(first.toolCalls).toEqual([
      { id: 'call_Xq3dWm9TzL2vK8pR4nY6sB1c', name: 'get_order', args: { order_id: 'A-1001' } },
      {
        id: 'call_7bHs2LkQ0eRt5YuI9oPa3SdF',
        name: 'search_orders',
        args: { customer: 'ada@example.com', status: 'open' },
      },
    ]);

    const second = await model.generate({
      messages: [
        QUESTION,
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls! },
        {
          role: 'tool',
          toolCallId: 'call_Xq3dWm9TzL2vK8pR4nY6sB1c',
          name: 'get_order',
          content: '{"id":"A-1001","status":"shipped"}',
        },
        { role: 'tool', toolCallId: 'call_7bHs2LkQ0eRt5YuI9oPa3SdF', name: 'search_orders', content: '[]' },
      ],
      tools: TOOLS,
    });
    const body = replay.requests[1]?.body as { messages: unknown[]; tool_choice?: unknown };
    expect(body.tool_choice).toBeUndefined();
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_Xq3dWm9TzL2vK8pR4nY6sB1c',
            type: 'function',
            function: { name: 'get_order', arguments: '{"order_id":"A-1001"}' },
          },
          {
            id: 'call_7bHs2LkQ0eRt5YuI9oPa3SdF',
            type: 'function',
            function: { name: 'search_orders', arguments: '{"customer":"ada@example.com","status":"open"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_Xq3dWm9TzL2vK8pR4nY6sB1c', content: '{"id":"A-1001","status":"shipped"}' },
      { role: 'tool', tool_call_id: 'call_7bHs2LkQ0eRt5YuI9oPa3SdF', content: '[]' },
    ]);
    expect(second.text).toBe('Order A-1001 shipped on 2025-03-08; Ada has no other open orders.');
    expect(second.toolCalls).toBeUndefined();
  });

  it('keeps arguments that are not JSON as the string the model wrote, and sends them back unchanged', async () => {
    const replay = replayFetch('openai/chat-completion-tool-call-bad-arguments', 'openai/chat-completion-after-tools');
    const model = openaiModel(replay.fetch);
    const result = await model.generate({ messages: [QUESTION], tools: TOOLS, toolChoice: 'auto' });
    expect(replay.requests[0]?.body).toMatchObject({ tool_choice: 'auto' });
    expect(result.toolCalls).toEqual([
      { id: 'call_Pq9sLm3XcV6bN1zA8wE4rT7y', name: 'get_order', args: '{"order_id": "A-10' },
    ]);

    await model.generate({
      messages: [
        QUESTION,
        { role: 'assistant', content: '', toolCalls: result.toolCalls! },
        {
          role: 'tool',
          toolCallId: 'call_Pq9sLm3XcV6bN1zA8wE4rT7y',
          name: 'get_order',
          content: 'arguments are not valid JSON',
          isError: true,
        },
      ],
      tools: TOOLS,
    });
    const messages = (replay.requests[1]?.body as { messages: { tool_calls?: { function: unknown }[] }[] }).messages;
    expect(messages[1]?.tool_calls?.[0]?.function).toEqual({ name: 'get_order', arguments: '{"order_id": "A-10' });
  });

  it('sends tool_choice none and no tools field when no tools are offered', async () => {
    const replay = replayFetch('openai/chat-completion-after-tools', 'openai/chat-completion-after-tools');
    const model = openaiModel(replay.fetch);
    await model.generate({ messages: [QUESTION], tools: TOOLS, toolChoice: 'none' });
    expect(replay.requests[0]?.body).toMatchObject({ tool_choice: 'none' });
    await model.generate({ messages: [QUESTION], tools: [], toolChoice: 'required' });
    expect(replay.requests[1]?.body).not.toHaveProperty('tools');
    expect(replay.requests[1]?.body).not.toHaveProperty('tool_choice');
  });

  it('Ollama (/v1): parses its tool call (empty content, an index per call)', async () => {
    const replay = replayFetch('ollama/chat-completion-tool-calls');
    const model = createOpenAICompatibleModel({
      id: 'ollama:llama3.2:1b',
      model: 'llama3.2:1b',
      apiKey: 'ollama',
      baseURL: 'http://127.0.0.1:11434/v1',
      providerName: 'Ollama',
      fetch: replay.fetch,
    });
    const result = await model.generate({ messages: [QUESTION], tools: TOOLS });
    expect(replay.requests[0]?.url.href).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect((replay.requests[0]?.body as { tools: unknown[] }).tools).toHaveLength(2);
    expect(result).toEqual({
      text: '',
      toolCalls: [{ id: 'call_k2x7q1mz', name: 'get_order', args: { order_id: 'A-1001' } }],
      usage: { inputTokens: 187, outputTokens: 22 },
      model: 'llama3.2:1b',
    });
  });

  it('a 400 for a request with tools says how to ask for prompted tools', async () => {
    const replay = replayFetch('ollama/tools-unsupported-400', 'ollama/tools-unsupported-400');
    const model = createOpenAICompatibleModel({
      id: 'ollama:gemma2:2b',
      model: 'gemma2:2b',
      apiKey: 'ollama',
      baseURL: 'http://127.0.0.1:11434/v1',
      providerName: 'Ollama',
      fetch: replay.fetch,
    });
    const error = await rejection(model.generate({ messages: [QUESTION], tools: TOOLS }));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('does not support tools');
    expect(error.message).toContain('add "?tools=prompted" after the model name');
    // Without tools the same status carries no such hint.
    const plain = await rejection(model.generate({ messages: [QUESTION] }));
    expect(plain.message).not.toContain('?tools=prompted');
  });

  it('llama.cpp server: parses its tool call; a server without ids gets call_<n> numbered on from the conversation', async () => {
    const replay = replayFetch('llama-cpp/chat-completion-tool-calls', 'llama-cpp/chat-completion-tool-calls-no-id');
    const model = openaiModel(
      replay.fetch,
      'http://127.0.0.1:8080/v1',
      'openai-compatible:http://127.0.0.1:8080/v1#qwen',
    );
    const first = await model.generate({ messages: [QUESTION], tools: TOOLS });
    expect(first.toolCalls).toEqual([
      { id: 'U8mJpRz1cK4wQe7TnB2yXh5LvD9sGa3F', name: 'search_orders', args: { status: 'open', limit: 5 } },
    ]);
    const second = await model.generate({
      messages: [
        QUESTION,
        { role: 'assistant', content: '', toolCalls: first.toolCalls! },
        { role: 'tool', toolCallId: 'U8mJpRz1cK4wQe7TnB2yXh5LvD9sGa3F', name: 'search_orders', content: '[]' },
      ],
      tools: TOOLS,
    });
    // One call was made before, so the unnamed one is the second; empty arguments text is no arguments.
    expect(second.toolCalls).toEqual([{ id: 'call_2', name: 'list_products', args: {} }]);
  });

  it('a model forced to prompted tools sends no tools and leaves toolCalling unset', async () => {
    const replay = replayFetch('llama-cpp/chat-completion');
    const model = createOpenAICompatibleModel({
      id: 'openai-compatible:http://127.0.0.1:8080/v1#tiny?tools=prompted',
      model: 'tiny',
      apiKey: 'none',
      baseURL: 'http://127.0.0.1:8080/v1',
      toolCalling: 'prompted',
      fetch: replay.fetch,
    });
    expect(model.toolCalling).toBeUndefined();
    await model.generate({ messages: [QUESTION], tools: TOOLS, toolChoice: 'required' });
    expect(replay.requests[0]?.body).not.toHaveProperty('tools');
    expect(replay.requests[0]?.body).not.toHaveProperty('tool_choice');
  });
});

describe('Anthropic tool use (recorded fixtures)', () => {
  const anthropic = (fetch: typeof globalThis.fetch) =>
    createAnthropicModel({
      id: 'anthropic:claude-3-5-haiku-latest',
      model: 'claude-3-5-haiku-latest',
      apiKey: 'sk-ant-test',
      fetch,
    });

  it('sends tools with input_schema and tool_choice, parses tool_use blocks, and folds results into one user message', async () => {
    const replay = replayFetch('anthropic/message-tool-use', 'anthropic/message-after-tool-result');
    const model = anthropic(replay.fetch);
    expect(model.toolCalling).toBe('native');

    const call: ChatCall = {
      system: 'You answer questions about orders.',
      messages: [QUESTION],
      tools: TOOLS,
      toolChoice: 'required',
    };
    const first = await model.generate(call);
    expect(replay.requests[0]?.body).toEqual({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 4096,
      system: 'You answer questions about orders.',
      messages: [{ role: 'user', content: QUESTION.content }],
      tools: TOOLS.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })),
      tool_choice: { type: 'any' },
    });
    expect(first.text).toBe("I'll look up the order and the customer's other orders.");
    expect(first.toolCalls).toEqual([
      { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_order', args: { order_id: 'A-1001' } },
      {
        id: 'toolu_01B7gHs2LkQ0eRt5YuI9oPa3',
        name: 'search_orders',
        args: { customer: 'ada@example.com', status: 'open' },
      },
    ]);
    expect(first.usage).toEqual({ inputTokens: 498, outputTokens: 112 });

    const second = await model.generate({
      ...call,
      toolChoice: 'auto',
      messages: [
        QUESTION,
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls! },
        {
          role: 'tool',
          toolCallId: 'toolu_01A09q90qw90lq917835lq9',
          name: 'get_order',
          content: '{"status":"shipped"}',
        },
        {
          role: 'tool',
          toolCallId: 'toolu_01B7gHs2LkQ0eRt5YuI9oPa3',
          name: 'search_orders',
          content: 'HTTP 503: try later',
          isError: true,
        },
        { role: 'user', content: 'Be brief.' },
      ],
    });
    const body = replay.requests[1]?.body as { messages: unknown[]; tool_choice: unknown };
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.messages).toEqual([
      { role: 'user', content: QUESTION.content },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: "I'll look up the order and the customer's other orders." },
          { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_order', input: { order_id: 'A-1001' } },
          {
            type: 'tool_use',
            id: 'toolu_01B7gHs2LkQ0eRt5YuI9oPa3',
            name: 'search_orders',
            input: { customer: 'ada@example.com', status: 'open' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '{"status":"shipped"}' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01B7gHs2LkQ0eRt5YuI9oPa3',
            content: 'HTTP 503: try later',
            is_error: true,
          },
        ],
      },
      { role: 'user', content: 'Be brief.' },
    ]);
    expect(second).toMatchObject({ text: 'Order A-1001 shipped on 2025-03-08; Ada has no other open orders.' });
    expect(second.toolCalls).toBeUndefined();
  });

  it('maps tool_choice none, and an assistant turn of tool calls only has no empty text block', async () => {
    const replay = replayFetch('anthropic/message-after-tool-result');
    await anthropic(replay.fetch).generate({
      messages: [
        QUESTION,
        { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_1', name: 'get_order', args: 'not json' }] },
        { role: 'tool', toolCallId: 'toolu_1', name: 'get_order', content: 'bad arguments', isError: true },
      ],
      tools: TOOLS,
      toolChoice: 'none',
    });
    const body = replay.requests[0]?.body as { messages: { content: unknown }[]; tool_choice: unknown };
    expect(body.tool_choice).toEqual({ type: 'none' });
    expect(body.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'get_order', input: {} }]);
  });
});

describe('createModel keeps native tool calling through its wrappers', () => {
  it('output limit, timeout, concurrency and retries pass toolCalling and toolCalls through', async () => {
    const replay = replayFetch('openai/chat-completion-tool-calls');
    const model = await createModel('openai:gpt-4o-mini', {
      env: { OPENAI_API_KEY: 'sk-test' },
      fetch: replay.fetch,
      resilience: { timeoutMs: 60_000, concurrency: 2, retry: { retries: 1 } },
    });
    expect(model.toolCalling).toBe('native');
    const result = await model.generate({ messages: [QUESTION], tools: TOOLS, tag: { purpose: 'execute' } });
    expect(result.toolCalls?.map((call) => call.name)).toEqual(['get_order', 'search_orders']);
    expect(replay.requests[0]?.body).toMatchObject({ max_completion_tokens: 8192, tools: expect.any(Array) });
  });
});
