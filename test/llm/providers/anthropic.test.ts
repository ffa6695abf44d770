import { describe, expect, it } from 'vitest';
import type { ChatCall } from '../../../src/llm/chat-model.js';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, createAnthropicModel } from '../../../src/llm/providers/anthropic.js';
import { rejection } from './rejection.js';
import { replayFetch, unreachableFetch } from './replay-fetch.js';

const CALL: ChatCall = {
  system: 'You verify subtask results. Answer in JSON.',
  messages: [{ role: 'user', content: 'Subtask: outline the report. Result: 1. Intro 2. Body 3. End' }],
  maxTokens: 300,
  json: { schema: { type: 'object' } },
};

function anthropic(fetch: typeof globalThis.fetch) {
  return createAnthropicModel({
    id: 'anthropic:claude-3-5-haiku-latest',
    model: 'claude-3-5-haiku-latest',
    apiKey: 'sk-ant-test-key',
    fetch,
  });
}

describe('anthropic provider (recorded fixtures)', () => {
  it('puts the system prompt top-level, sends max_tokens, and joins the text blocks', async () => {
    const replay = replayFetch('anthropic/message');
    const model = anthropic(replay.fetch);
    expect(model.kind).toBe('real');

    const result = await model.generate(CALL);

    expect(replay.requests).toHaveLength(1);
    const [request] = replay.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url.href).toBe('https://api.anthropic.com/v1/messages');
    expect(request?.headers.get('anthropic-version')).toBeTruthy();
    const credential = request?.headers.get('x-api-key') ?? request?.headers.get('authorization');
    expect(credential).toContain('sk-ant-test-key');
    expect(request?.body).toEqual({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 300,
      system: 'You verify subtask results. Answer in JSON.',
      messages: [{ role: 'user', content: 'Subtask: outline the report. Result: 1. Intro 2. Body 3. End' }],
    });

    expect(result).toEqual({
      text: '{"verdict": "pass", "reason": "All steps are covered."}',
      usage: { inputTokens: 52, outputTokens: 19 },
      model: 'claude-3-5-haiku-20241022',
    });
  });

  it('defaults max_tokens to 4096 and sends no system field without a system prompt', async () => {
    const replay = replayFetch('anthropic/message');
    await anthropic(replay.fetch).generate({ messages: [{ role: 'user', content: 'hi' }] });
    expect(ANTHROPIC_DEFAULT_MAX_TOKENS).toBe(4096);
    expect(replay.requests[0]?.body).toEqual({
      model: 'claude-3-5-haiku-latest',
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('maps 529 overloaded to a retryable PROVIDER error', async () => {
    const replay = replayFetch('anthropic/overloaded-529');
    const error = await rejection(anthropic(replay.fetch).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toContain('HTTP 529');
    expect(error.message).toContain('overloaded_error');
    expect(replay.requests).toHaveLength(1);
  });

  it('maps 429 to a retryable PROVIDER error carrying retry-after', async () => {
    const replay = replayFetch('anthropic/rate-limit-429');
    const error = await rejection(anthropic(replay.fetch).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(17_000);
    expect(error.message).toContain('rate_limit_error');
    expect(replay.requests).toHaveLength(1);
  });

  it('does not retry a 429 for a reached spend limit', async () => {
    const replay = replayFetch('anthropic/spend-limit-429');
    const error = await rejection(anthropic(replay.fetch).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(false);
  });

  it('maps 401 to a non-retryable PROVIDER error naming ANTHROPIC_API_KEY', async () => {
    const replay = replayFetch('anthropic/unauthorized-401');
    const error = await rejection(anthropic(replay.fetch).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('authentication_error');
    expect(error.message).toContain('check ANTHROPIC_API_KEY');
  });

  it('maps connection failures to retryable PROVIDER errors', async () => {
    const error = await rejection(anthropic(unreachableFetch()).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('https://api.anthropic.com');
  });

  it('aborts mid-request with a non-retryable ABORTED error', async () => {
    const replay = replayFetch('anthropic/message-slow');
    const controller = new AbortController();
    const pending = anthropic(replay.fetch).generate(CALL, controller.signal);
    await replay.requestArrived(1);
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('ABORTED');
    expect(error.retryable).toBe(false);
  });

  it("sends a base URL's credentials as Basic auth, never in the URL or an error message", async () => {
    const replay = replayFetch('anthropic/message');
    const model = createAnthropicModel({
      id: 'anthropic:claude-3-5-haiku-latest',
      model: 'claude-3-5-haiku-latest',
      apiKey: 'k',
      baseURL: 'https://proxy:s3cret@gw.example',
      fetch: replay.fetch,
    });
    await model.generate(CALL);
    expect(replay.requests[0]?.url.href).toBe('https://gw.example/v1/messages');
    expect(replay.requests[0]?.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('proxy:s3cret').toString('base64')}`,
    );
    const failing = createAnthropicModel({
      id: 'anthropic:claude-3-5-haiku-latest',
      model: 'claude-3-5-haiku-latest',
      apiKey: 'k',
      baseURL: 'https://proxy:s3cret@gw.example',
      fetch: unreachableFetch(),
    });
    const error = await rejection(failing.generate(CALL));
    expect(error.message).toContain('https://gw.example');
    expect(error.message).not.toContain('s3cret');
  });
});
