import { describe, expect, it } from 'vitest';
import type { ChatCall } from '../../../src/llm/chat-model.js';
import {
  createOpenAICompatibleModel,
  type OpenAICompatibleModelOptions,
} from '../../../src/llm/providers/openai-compatible.js';
import { rejection } from './rejection.js';
import { replayFetch, unreachableFetch } from './replay-fetch.js';

const CALL: ChatCall = {
  system: 'You plan tasks as JSON.',
  messages: [
    { role: 'user', content: 'Plan: write a report' },
    { role: 'assistant', content: '{"subtasks": []}' },
    { role: 'user', content: 'That plan is empty; try again.' },
  ],
  maxTokens: 256,
  temperature: 0.2,
  json: { schema: { type: 'object' }, name: 'plan' },
};

function openai(fetch: typeof globalThis.fetch, overrides: Partial<OpenAICompatibleModelOptions> = {}) {
  return createOpenAICompatibleModel({
    id: 'openai:gpt-4o-mini',
    model: 'gpt-4o-mini',
    apiKey: 'sk-test-key',
    baseURL: 'https://api.openai.com/v1',
    providerName: 'OpenAI',
    apiKeyEnv: 'OPENAI_API_KEY',
    fetch,
    ...overrides,
  });
}

describe('openai-compatible provider (recorded fixtures)', () => {
  it('sends system + messages, max_tokens and temperature, and parses text, usage and model', async () => {
    const replay = replayFetch('openai/chat-completion');
    const model = openai(replay.fetch);
    expect(model.kind).toBe('real');
    expect(model.id).toBe('openai:gpt-4o-mini');

    const result = await model.generate(CALL);

    expect(replay.requests).toHaveLength(1);
    const [request] = replay.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url.href).toBe('https://api.openai.com/v1/chat/completions');
    expect(request?.headers.get('authorization')).toBe('Bearer sk-test-key');
    expect(request?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You plan tasks as JSON.' },
        { role: 'user', content: 'Plan: write a report' },
        { role: 'assistant', content: '{"subtasks": []}' },
        { role: 'user', content: 'That plan is empty; try again.' },
      ],
      max_tokens: 256,
      temperature: 0.2,
    });
    // JSON mode is deliberately not forced (small models break under it).
    expect(request?.body).not.toHaveProperty('response_format');

    expect(result).toEqual({
      text: '{"subtasks": [{"id": "t1", "objective": "Outline the report", "agent": "writer", "dependsOn": []}]}',
      usage: { inputTokens: 47, outputTokens: 31 },
      model: 'gpt-4o-mini-2024-07-18',
    });
  });

  it('can send max_completion_tokens instead (OpenAI reasoning models) and omits unset fields', async () => {
    const replay = replayFetch('openai/chat-completion');
    const model = openai(replay.fetch, { maxTokensField: 'max_completion_tokens' });
    await model.generate({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 64 });
    expect(replay.requests[0]?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 64,
    });
  });

  it('talks to Ollama at its /v1 base URL', async () => {
    const replay = replayFetch('ollama/chat-completion');
    const model = createOpenAICompatibleModel({
      id: 'ollama:llama3.2:1b',
      model: 'llama3.2:1b',
      apiKey: 'ollama',
      baseURL: 'http://127.0.0.1:11434/v1',
      providerName: 'Ollama',
      fetch: replay.fetch,
    });
    const result = await model.generate({ messages: [{ role: 'user', content: 'Capital of France?' }] });
    expect(replay.requests[0]?.url.href).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(replay.requests[0]?.body).toEqual({
      model: 'llama3.2:1b',
      messages: [{ role: 'user', content: 'Capital of France?' }],
    });
    expect(result).toEqual({
      text: 'Paris is the capital of France.',
      usage: { inputTokens: 32, outputTokens: 8 },
      model: 'llama3.2:1b',
    });
  });

  it('maps 429 to a retryable PROVIDER error carrying Retry-After', async () => {
    const replay = replayFetch('openai/rate-limit-429');
    const error = await rejection(openai(replay.fetch).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.message).toContain('HTTP 429');
    expect(error.message).toContain('Rate limit reached for gpt-4o-mini');
    expect(error.cause).toBeDefined();
    // maxRetries: 0 — the SDK did not retry on its own; Weft's wrapper decides.
    expect(replay.requests).toHaveLength(1);
  });

  it('maps 500 to a retryable PROVIDER error without retryAfterMs', async () => {
    const replay = replayFetch('openai/server-error-500');
    const error = await rejection(openai(replay.fetch).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.message).toContain('HTTP 500');
    expect(replay.requests).toHaveLength(1);
  });

  it('maps 401 to a non-retryable PROVIDER error naming the key variable', async () => {
    const replay = replayFetch('openai/unauthorized-401');
    const error = await rejection(openai(replay.fetch).generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('HTTP 401');
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).toContain('check OPENAI_API_KEY');
  });

  it('maps an unreachable server to a retryable PROVIDER error naming the URL', async () => {
    const model = openai(unreachableFetch(), { baseURL: 'http://127.0.0.1:11434/v1', providerName: 'Ollama' });
    const error = await rejection(model.generate(CALL));
    expect(error.code).toBe('PROVIDER');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('could not connect at http://127.0.0.1:11434/v1');
  });

  it('names an unreachable server without the key its base URL carries', async () => {
    const model = openai(unreachableFetch(), {
      baseURL: 'http://127.0.0.1:11434/v1?key=hunter2',
      providerName: 'Ollama',
    });
    const error = await rejection(model.generate(CALL));
    expect(error.message).toContain('could not connect at http://127.0.0.1:11434/v1?key=***');
    expect(error.message).not.toContain('hunter2');
  });

  it('aborts mid-request with a non-retryable ABORTED error', async () => {
    const replay = replayFetch('openai/chat-completion-slow');
    const controller = new AbortController();
    const pending = openai(replay.fetch).generate(CALL, controller.signal);
    await replay.requestArrived(1);
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('ABORTED');
    expect(error.retryable).toBe(false);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const replay = replayFetch('openai/chat-completion');
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(openai(replay.fetch).generate(CALL, controller.signal));
    expect(error.code).toBe('ABORTED');
    expect(replay.requests).toHaveLength(0);
  });
});
