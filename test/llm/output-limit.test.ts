import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/config.js';
import type { ChatCall } from '../../src/llm/chat-model.js';
import { DEFAULT_MAX_OUTPUT_TOKENS, outputTokenLimits } from '../../src/llm/output-limit.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { WeftError } from '../../src/errors.js';
import { replayFetch } from './providers/replay-fetch.js';

const call = (purpose: NonNullable<ChatCall['tag']>['purpose']): ChatCall => ({
  messages: [{ role: 'user', content: 'hi' }],
  tag: { purpose },
});

describe('output-token limit per call purpose', () => {
  it('openai: sends max_completion_tokens by purpose when the call sets none', async () => {
    const replay = replayFetch('openai/chat-completion', 'openai/chat-completion');
    const model = await createModel('openai:gpt-4o-mini', { env: { OPENAI_API_KEY: 'sk' }, fetch: replay.fetch });
    await model.generate(call('execute'));
    await model.generate({ ...call('verify'), maxTokens: 7 });
    expect(replay.requests[0]?.body).toMatchObject({ max_completion_tokens: DEFAULT_MAX_OUTPUT_TOKENS.execute });
    expect(replay.requests[1]?.body).toMatchObject({ max_completion_tokens: 7 });
  });

  it('openai-compatible and ollama: send max_tokens, from the configured limits', async () => {
    const replay = replayFetch('ollama/chat-completion', 'ollama/chat-completion', 'ollama/chat-completion');
    const settings = { default: 300, verify: 64 };
    const compatible = await createModel('openai-compatible:http://127.0.0.1:9/v1#tiny', {
      env: {},
      fetch: replay.fetch,
      maxOutputTokens: settings,
    });
    await compatible.generate(call('verify'));
    await compatible.generate(call('plan'));
    const ollama = await createModel('ollama:tiny', { env: {}, fetch: replay.fetch, maxOutputTokens: 123 });
    await ollama.generate({ messages: [{ role: 'user', content: 'untagged' }] });
    expect(replay.requests.map((request) => (request.body as Record<string, unknown>)['max_tokens'])).toEqual([
      64, 300, 123,
    ]);
  });

  it('anthropic: max_tokens follows the purpose instead of one fixed default', async () => {
    const replay = replayFetch('anthropic/message', 'anthropic/message');
    const model = await createModel('anthropic:claude-3-5-haiku-latest', {
      env: { ANTHROPIC_API_KEY: 'k' },
      fetch: replay.fetch,
    });
    await model.generate(call('verify'));
    await model.generate(call('plan'));
    expect(replay.requests.map((request) => (request.body as Record<string, unknown>)['max_tokens'])).toEqual([
      DEFAULT_MAX_OUTPUT_TOKENS.verify,
      DEFAULT_MAX_OUTPUT_TOKENS.plan,
    ]);
  });

  it('local: passes the limit to the chat session', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-limit-'));
    try {
      await writeFile(join(dir, 'm.gguf'), 'GGUF');
      const seen: Array<Record<string, unknown>> = [];
      const module = fakeLlama(seen);
      const model = await createModel(`local:${join(dir, 'm.gguf')}`, {
        importNodeLlamaCpp: async () => module,
        maxOutputTokens: { rank: 33 },
      });
      await model.generate(call('rank'));
      expect(seen[0]?.['maxTokens']).toBe(33);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads maxOutputTokens from the config: one number, or per purpose with a default', () => {
    expect(outputTokenLimits(parseConfig('maxOutputTokens: 500\n', 'c.yaml').maxOutputTokens).verify).toBe(500);
    const limits = outputTokenLimits(
      parseConfig('maxOutputTokens:\n  default: 900\n  plan: 2000\n', 'c.yaml').maxOutputTokens,
    );
    expect([limits.plan, limits.execute, limits.verify]).toEqual([2000, 900, 900]);
    expect(outputTokenLimits(parseConfig('maxOutputTokens: { plan: 10 }\n', 'c.yaml').maxOutputTokens).execute).toBe(
      DEFAULT_MAX_OUTPUT_TOKENS.execute,
    );
  });

  it.each([
    ['retries: 1\nmaxOutputTokens:\n  plan: -1\n', 3, 'maxOutputTokens.plan'],
    // A misspelt purpose is reported at its own key.
    ['maxOutputTokens:\n  plann: 5\n', 2, 'maxOutputTokens.plann'],
    ['maxOutputTokens: 1.5\n', 1, 'maxOutputTokens'],
  ])('rejects a bad maxOutputTokens with file, line and field: %j', (text, line, field) => {
    let error: unknown;
    try {
      parseConfig(text, 'c.yaml');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WeftError);
    expect((error as WeftError).code).toBe('BAD_INPUT');
    expect((error as WeftError).issues?.[0]).toMatchObject({ file: 'c.yaml', line, field });
  });
});

/** Enough of node-llama-cpp v3 for one prompt; records the prompt options. */
function fakeLlama(seen: Array<Record<string, unknown>>) {
  const sequence = {
    tokenMeter: { getState: () => ({ usedInputTokens: 1, usedOutputTokens: 1 }) },
    clearHistory: async () => undefined,
  };
  class LlamaChatSession {
    setChatHistory() {}
    async prompt(_prompt: string, options: Record<string, unknown> = {}) {
      seen.push(options);
      return 'ok';
    }
    dispose() {}
  }
  return {
    LlamaChatSession,
    async getLlama() {
      return {
        async loadModel() {
          return {
            async createContext() {
              return { contextSize: 8192, getSequence: () => sequence, dispose: async () => undefined };
            },
            dispose: async () => undefined,
          };
        },
        async createGrammarForJsonSchema(schema: unknown) {
          return { schema };
        },
        async getGrammarFor(type: string) {
          return { builtin: type };
        },
        dispose: async () => undefined,
      };
    },
  };
}

describe("output-token limit of a purpose of the caller's own", () => {
  it("gives a purpose no limit names the `other` limit (and never an Object.prototype member's)", async () => {
    const replay = replayFetch('openai/chat-completion', 'openai/chat-completion');
    const model = await createModel('openai:gpt-4o-mini', {
      env: { OPENAI_API_KEY: 'sk' },
      fetch: replay.fetch,
      maxOutputTokens: { other: 321, plan: 99 },
    });
    await model.generate(call('summarise-ticket'));
    await model.generate(call('constructor'));
    expect(replay.requests[0]?.body).toMatchObject({ max_completion_tokens: 321 });
    expect(replay.requests[1]?.body).toMatchObject({ max_completion_tokens: 321 });
  });
});
