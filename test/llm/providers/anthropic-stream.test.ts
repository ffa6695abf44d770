import { describe, expect, it } from 'vitest';
import { isWeftError } from '../../../src/errors.js';
import type { StreamEvent } from '../../../src/llm/chat-model.js';
import { createAnthropicModel } from '../../../src/llm/providers/anthropic.js';
import { sseServers } from './sse-server.js';

/** One event of Anthropic's messages stream, as the server writes it. */
function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

const START = sse('message_start', {
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [],
    stop_reason: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  },
});
const BLOCK = sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
const text = (piece: string) => sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
const END =
  sse('content_block_stop', { index: 0 }) +
  sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }) +
  sse('message_stop', {});

const serve = sseServers();

function model(baseURL: string) {
  return createAnthropicModel({ id: 'anthropic:claude-test', model: 'claude-test', apiKey: 'sk-ant-test', baseURL });
}

describe('anthropic streaming', () => {
  it('hands text deltas on before the message ends, with the usage of the stream', async () => {
    let release: (() => void) | undefined;
    const seen = new Promise<void>((resolve) => {
      release = resolve;
    });
    const url = await serve((response) => {
      response.write(START + BLOCK + text('Bon') + text('jour'));
      // The rest waits until the client has handed the first pieces on.
      void seen.then(() => response.end(text('!') + END));
    });
    const events: StreamEvent[] = [];
    const result = await model(url).generate({
      messages: [{ role: 'user', content: 'hi' }],
      onStream: (event) => {
        events.push(event);
        if (event.kind === 'delta' && event.text === 'jour') release?.();
      },
    });
    expect(events.map((event) => (event.kind === 'delta' ? event.text : '?'))).toEqual(['Bon', 'jour', '!']);
    expect(result).toEqual({ text: 'Bonjour!', usage: { inputTokens: 12, outputTokens: 5 }, model: 'claude-test' });
  });

  it('a dropped stream keeps what arrived and says so', async () => {
    const url = await serve((response) => {
      response.write(START + BLOCK + text('half a '));
      setImmediate(() => response.socket?.destroy());
    });
    const failure = await model(url)
      .generate({ messages: [{ role: 'user', content: 'hi' }], onStream: () => {} })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isWeftError(failure)).toBe(true);
    if (!isWeftError(failure)) return;
    expect(failure.partialText).toBe('half a ');
    expect(failure.message).toContain('reply cut after 7 characters');
    expect(failure.retryable).toBe(true);
  });

  it('streams a reply that calls a tool: the text handed on, the tool_use input joined from its JSON fragments', async () => {
    const url = await serve((response) => {
      response.write(START + BLOCK + text('Checking.') + sse('content_block_stop', { index: 0 }));
      response.write(
        sse('content_block_start', {
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_order', input: {} },
        }),
      );
      response.write(
        sse('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"order_id"' } }),
      );
      response.write(
        sse('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: ': "O-9"}' } }),
      );
      response.end(
        sse('content_block_stop', { index: 1 }) +
          sse('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }) +
          sse('message_stop', {}),
      );
    });
    const events: StreamEvent[] = [];
    const result = await model(url).generate({
      messages: [{ role: 'user', content: 'where is O-9?' }],
      tools: [{ name: 'get_order', description: 'An order', inputSchema: { type: 'object' } }],
      onStream: (event) => events.push(event),
    });
    expect(events).toEqual([{ kind: 'delta', text: 'Checking.' }]);
    expect(result.text).toBe('Checking.');
    expect(result.toolCalls).toEqual([{ id: 'toolu_1', name: 'get_order', args: { order_id: 'O-9' } }]);
  });
});
