import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/llm/chat-model.js';
import { createOpenAICompatibleModel } from '../../../src/llm/providers/openai-compatible.js';
import { withRetries } from '../../../src/llm/retry.js';
import { withTimeout } from '../../../src/llm/timeout.js';
import { isWeftError } from '../../../src/errors.js';
import { openAiChunk as chunk, type SseHandler, sseServers } from './sse-server.js';

const serveEvents = sseServers();

/** A server answering each request with `handler`'s events; its OpenAI base URL. */
async function serve(handler: SseHandler): Promise<string> {
  return `${await serveEvents(handler)}/v1`;
}

function model(baseURL: string) {
  return createOpenAICompatibleModel({
    id: 'openai-compatible:gpt-test',
    model: 'gpt-test',
    apiKey: 'sk-test',
    baseURL,
    providerName: 'test server',
    apiKeyEnv: 'TEST_KEY',
    maxRetries: 0,
  } as Parameters<typeof createOpenAICompatibleModel>[0]);
}

describe('openai-compatible streaming', () => {
  it('hands pieces on before the reply ends, and returns the whole text', async () => {
    let release: (() => void) | undefined;
    const firstSeen = new Promise<void>((resolve) => {
      release = resolve;
    });
    const url = await serve((response) => {
      response.write(chunk('Hel'));
      response.write(chunk('lo, '));
      // The last piece waits until the client has handed the first ones on: proof they came before the end.
      void firstSeen.then(() => {
        response.write(chunk('world'));
        response.end('data: [DONE]\n\n');
      });
    });
    const events: StreamEvent[] = [];
    const result = await model(url).generate({
      messages: [{ role: 'user', content: 'hi' }],
      onStream: (event) => {
        events.push(event);
        if (event.kind === 'delta' && event.text === 'lo, ') release?.();
      },
    });
    expect(events).toEqual([
      { kind: 'delta', text: 'Hel' },
      { kind: 'delta', text: 'lo, ' },
      { kind: 'delta', text: 'world' },
    ]);
    expect(result.text).toBe('Hello, world');
    expect(result.model).toBe('gpt-test');
  });

  it('a stream cut mid-way keeps what arrived on the error and says how much', async () => {
    const url = await serve((response) => {
      response.write(chunk('partial '));
      response.write(chunk('answer'));
      setImmediate(() => response.socket?.destroy());
    });
    const seen: string[] = [];
    const failure = await model(url)
      .generate({
        messages: [{ role: 'user', content: 'hi' }],
        onStream: (event) => {
          if (event.kind === 'delta') seen.push(event.text);
        },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isWeftError(failure)).toBe(true);
    if (!isWeftError(failure)) return;
    expect(failure.partialText).toBe('partial answer');
    expect(failure.message).toContain('reply cut after 14 characters');
    expect(seen.join('')).toBe('partial answer');
  });

  it('an abort mid-stream keeps what arrived', async () => {
    const controller = new AbortController();
    const url = await serve((response) => {
      response.write(chunk('kept'));
    });
    const failure = await model(url)
      .generate(
        {
          messages: [{ role: 'user', content: 'hi' }],
          onStream: () => controller.abort(),
        },
        controller.signal,
      )
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isWeftError(failure) && failure.code).toBe('ABORTED');
    expect(isWeftError(failure) && failure.partialText).toBe('kept');
  });

  it('withRetries marks the text of a failed try discarded before the retry streams anew', async () => {
    const url = await serve((response, request) => {
      if (request === 0) {
        response.write(chunk('lost'));
        setImmediate(() => response.socket?.destroy());
        return;
      }
      response.write(chunk('fresh'));
      response.end('data: [DONE]\n\n');
    });
    const events: StreamEvent[] = [];
    const retried = withRetries(model(url), { retries: 1, sleep: async () => {} });
    const result = await retried.generate({
      messages: [{ role: 'user', content: 'hi' }],
      onStream: (event) => events.push(event),
    });
    expect(result.text).toBe('fresh');
    expect(events).toEqual([
      { kind: 'delta', text: 'lost' },
      { kind: 'discard', chars: 4 },
      { kind: 'delta', text: 'fresh' },
    ]);
  });

  it('a timeout mid-stream keeps what arrived on the TIMEOUT error', async () => {
    // The server sends one piece and then never finishes: only the deadline ends the call.
    const url = await serve((response) => {
      response.write(chunk('so far'));
    });
    const failure = await withTimeout(model(url), 200)
      .generate({ messages: [{ role: 'user', content: 'hi' }], onStream: () => {} })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isWeftError(failure) && failure.code).toBe('TIMEOUT');
    expect(isWeftError(failure) && failure.partialText).toBe('so far');
    expect(isWeftError(failure) && failure.message).toContain('reply cut after 6 characters');
  });

  it('when retries give up, the error still carries the partial text of the last try', async () => {
    const url = await serve((response) => {
      response.write(chunk('again'));
      setImmediate(() => response.socket?.destroy());
    });
    const failure = await withRetries(model(url), { retries: 1, sleep: async () => {} })
      .generate({ messages: [{ role: 'user', content: 'hi' }], onStream: () => {} })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isWeftError(failure) && failure.message).toContain('after 1 retry');
    expect(isWeftError(failure) && failure.partialText).toBe('again');
  });

  it('streams a reply that calls tools: text pieces handed on, the call put together from its fragments', async () => {
    const frame = (delta: Record<string, unknown>) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-test', choices: [{ index: 0, delta }] })}\n\n`;
    const url = await serve((response) => {
      response.write(frame({ content: 'Looking it up.' }));
      response.write(
        frame({
          tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_order', arguments: '' } }],
        }),
      );
      response.write(frame({ tool_calls: [{ index: 0, function: { arguments: '{"order_' } }] }));
      response.write(frame({ tool_calls: [{ index: 0, function: { arguments: 'id":"O-9"}' } }] }));
      response.end('data: [DONE]\n\n');
    });
    const events: StreamEvent[] = [];
    const result = await model(url).generate({
      messages: [{ role: 'user', content: 'where is O-9?' }],
      tools: [{ name: 'get_order', description: 'An order', inputSchema: { type: 'object' } }],
      onStream: (event) => events.push(event),
    });
    expect(events).toEqual([{ kind: 'delta', text: 'Looking it up.' }]);
    expect(result.text).toBe('Looking it up.');
    expect(result.toolCalls).toEqual([{ id: 'call_a', name: 'get_order', args: { order_id: 'O-9' } }]);
  });
});
