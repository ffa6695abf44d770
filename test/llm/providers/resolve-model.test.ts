import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NO_MODEL_MESSAGE,
  createModel,
  ollamaHost,
  probeOllama,
  resolveModelSpec,
} from '../../../src/llm/resolve-model.js';
import { rejection } from './rejection.js';
import { replayFetch, unreachableFetch } from './replay-fetch.js';

const HI = { messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 32 };

describe('createModel', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-resolve-'));
    await writeFile(join(dir, 'replies.json'), JSON.stringify({ replies: [{ text: 'scripted hello' }] }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('builds openai: with OPENAI_API_KEY, the default base URL and max_completion_tokens', async () => {
    const replay = replayFetch('openai/chat-completion');
    const model = await createModel('openai:gpt-4o-mini', { env: { OPENAI_API_KEY: 'sk-env' }, fetch: replay.fetch });
    expect(model.id).toBe('openai:gpt-4o-mini');
    expect(model.kind).toBe('real');
    const result = await model.generate(HI);
    expect(result.usage).toEqual({ inputTokens: 47, outputTokens: 31 });
    const [request] = replay.requests;
    expect(request?.url.href).toBe('https://api.openai.com/v1/chat/completions');
    expect(request?.headers.get('authorization')).toBe('Bearer sk-env');
    expect(request?.body).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: 32 });
  });

  it('honours OPENAI_BASE_URL', async () => {
    const replay = replayFetch('openai/chat-completion');
    const model = await createModel('openai:gpt-4o-mini', {
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'https://proxy.example.com/openai/v1' },
      fetch: replay.fetch,
    });
    await model.generate(HI);
    expect(replay.requests[0]?.url.href).toBe('https://proxy.example.com/openai/v1/chat/completions');
  });

  it('fails with MODEL_CONFIG naming the missing key of an explicitly chosen provider', async () => {
    const openai = await rejection(createModel('openai:gpt-4o-mini', { env: {} }));
    expect(openai.code).toBe('MODEL_CONFIG');
    expect(openai.message).toContain('OPENAI_API_KEY');
    const anthropic = await rejection(
      createModel('anthropic:claude-3-5-haiku-latest', { env: { ANTHROPIC_API_KEY: '  ' } }),
    );
    expect(anthropic.code).toBe('MODEL_CONFIG');
    expect(anthropic.message).toContain('ANTHROPIC_API_KEY');
  });

  it('builds anthropic: with ANTHROPIC_API_KEY', async () => {
    const replay = replayFetch('anthropic/message');
    const model = await createModel('anthropic:claude-3-5-haiku-latest', {
      env: { ANTHROPIC_API_KEY: 'sk-ant-env' },
      fetch: replay.fetch,
    });
    const result = await model.generate(HI);
    expect(replay.requests[0]?.url.href).toBe('https://api.anthropic.com/v1/messages');
    expect(result.model).toBe('claude-3-5-haiku-20241022');
  });

  it('builds ollama: against OLLAMA_HOST/v1 without needing a key', async () => {
    const replay = replayFetch('ollama/chat-completion', 'ollama/chat-completion');
    const local = await createModel('ollama:llama3.2:1b', { env: {}, fetch: replay.fetch });
    await local.generate(HI);
    expect(replay.requests[0]?.url.href).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(replay.requests[0]?.body).toMatchObject({ model: 'llama3.2:1b', max_tokens: 32 });

    const remote = await createModel('ollama:llama3.2:1b', {
      env: { OLLAMA_HOST: 'gpu-box:11500' },
      fetch: replay.fetch,
    });
    await remote.generate(HI);
    expect(replay.requests[1]?.url.href).toBe('http://gpu-box:11500/v1/chat/completions');
  });

  it('builds openai-compatible: with WEFT_API_KEY, OPENAI_API_KEY, or the placeholder "none"', async () => {
    const replay = replayFetch('ollama/chat-completion', 'ollama/chat-completion', 'ollama/chat-completion');
    const spec = 'openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-0.5b';
    for (const env of [{ WEFT_API_KEY: 'weft-key', OPENAI_API_KEY: 'sk-other' }, { OPENAI_API_KEY: 'sk-other' }, {}]) {
      const model = await createModel(spec, { env, fetch: replay.fetch });
      await model.generate(HI);
    }
    expect(replay.requests.map((request) => request.headers.get('authorization'))).toEqual([
      'Bearer weft-key',
      'Bearer sk-other',
      'Bearer none',
    ]);
    expect(replay.requests[0]?.url.href).toBe('http://127.0.0.1:8080/v1/chat/completions');
    expect(replay.requests[0]?.body).toMatchObject({ model: 'qwen2.5-0.5b' });
  });

  it('accepts a parsed ModelSpec', async () => {
    const model = await createModel({ provider: 'ollama', model: 'tiny' }, { env: {} });
    expect(model.id).toBe('ollama:tiny');
  });

  it('rejects a bad spec with MODEL_SPEC', async () => {
    const error = await rejection(createModel('opena:gpt-4o'));
    expect(error.code).toBe('MODEL_SPEC');
  });

  it('names a missing local: file with BAD_INPUT', async () => {
    const error = await rejection(createModel('local:models/nope.gguf', { cwd: dir }));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain(join(dir, 'models/nope.gguf'));
  });

  it('builds scripted: relative to cwd, labelled as scripted', async () => {
    const model = await createModel('scripted:replies.json', { cwd: dir });
    expect(model.kind).toBe('scripted');
    expect((await model.generate(HI)).text).toBe('scripted hello');
  });

  it('builds sim:, labelled as sim', async () => {
    const model = await createModel('sim:seed=3');
    expect(model.kind).toBe('sim');
    expect(model.id.startsWith('sim:')).toBe(true);
  });

  it('wraps with retries when resilience options are given', async () => {
    const replay = replayFetch('openai/server-error-500', 'openai/chat-completion');
    const model = await createModel('openai:gpt-4o-mini', {
      env: { OPENAI_API_KEY: 'sk-env' },
      fetch: replay.fetch,
      resilience: { retry: { retries: 1, sleep: async () => undefined } },
    });
    const result = await model.generate(HI);
    expect(result.usage.outputTokens).toBe(31);
    expect(replay.requests).toHaveLength(2);
  });
});

describe('ollamaHost', () => {
  it.each([
    [undefined, 'http://127.0.0.1:11434'],
    ['', 'http://127.0.0.1:11434'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['0.0.0.0:11500', 'http://127.0.0.1:11500'],
    ['localhost', 'http://localhost:11434'],
    ['http://gpu-box:8000/', 'http://gpu-box:8000'],
    ['https://ollama.example.com', 'https://ollama.example.com'],
    ['http://[::1]:11434', 'http://[::1]:11434'],
  ])('OLLAMA_HOST=%j → %s', (value, expected) => {
    expect(ollamaHost({ OLLAMA_HOST: value })).toBe(expected);
  });
});

describe('resolveModelSpec', () => {
  const noOllama = async (): Promise<string | undefined> => undefined;
  const allKeys = { WEFT_MODEL: 'ollama:from-env', OPENAI_API_KEY: 'sk', ANTHROPIC_API_KEY: 'sk-ant' };

  it('prefers the flag, then the config file, then WEFT_MODEL, then API keys, then Ollama', async () => {
    const hasOllama = async (): Promise<string | undefined> => 'llama3.2:1b';
    expect(
      await resolveModelSpec({
        flag: 'sim:seed=1',
        config: { model: 'ollama:cfg' },
        env: allKeys,
        probeOllama: hasOllama,
      }),
    ).toEqual({ spec: 'sim:seed=1', source: 'flag' });
    expect(await resolveModelSpec({ config: { model: 'ollama:cfg' }, env: allKeys, probeOllama: hasOllama })).toEqual({
      spec: 'ollama:cfg',
      source: 'config',
    });
    expect(await resolveModelSpec({ config: {}, env: allKeys, probeOllama: hasOllama })).toEqual({
      spec: 'ollama:from-env',
      source: 'WEFT_MODEL',
    });
    expect(
      await resolveModelSpec({ env: { OPENAI_API_KEY: 'sk', ANTHROPIC_API_KEY: 'sk-ant' }, probeOllama: hasOllama }),
    ).toEqual({ spec: 'openai:gpt-4o-mini', source: 'OPENAI_API_KEY' });
    expect(await resolveModelSpec({ env: { ANTHROPIC_API_KEY: 'sk-ant' }, probeOllama: hasOllama })).toEqual({
      spec: 'anthropic:claude-3-5-haiku-latest',
      source: 'ANTHROPIC_API_KEY',
    });
    expect(await resolveModelSpec({ env: {}, probeOllama: hasOllama })).toEqual({
      spec: 'ollama:llama3.2:1b',
      source: 'ollama',
    });
  });

  it('does not probe Ollama when something earlier matched', async () => {
    let probed = false;
    await resolveModelSpec({
      env: { OPENAI_API_KEY: 'sk' },
      probeOllama: async () => {
        probed = true;
        return 'x';
      },
    });
    expect(probed).toBe(false);
  });

  it('ignores blank config and env values', async () => {
    const resolved = await resolveModelSpec({
      config: { model: '  ' },
      env: { WEFT_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-ant' },
      probeOllama: noOllama,
    });
    expect(resolved.source).toBe('ANTHROPIC_API_KEY');
  });

  it('explains every way to configure a model when none is found', async () => {
    const error = await rejection(resolveModelSpec({ env: {}, probeOllama: noOllama }));
    expect(error.code).toBe('MODEL_CONFIG');
    expect(error.message).toBe(NO_MODEL_MESSAGE);
    for (const way of [
      '--model',
      '.weft/config.yaml',
      'model:',
      'WEFT_MODEL',
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'Ollama',
    ]) {
      expect(error.message).toContain(way);
    }
    expect(error.message.split('\n').length).toBeGreaterThan(5);
  });

  it('treats a failing probe as no Ollama', async () => {
    const error = await rejection(
      resolveModelSpec({
        env: {},
        probeOllama: async () => {
          throw new Error('boom');
        },
      }),
    );
    expect(error.code).toBe('MODEL_CONFIG');
  });

  it('validates explicit specs and says where they came from', async () => {
    const fromFlag = await rejection(resolveModelSpec({ flag: 'opena:gpt-4o', env: {}, probeOllama: noOllama }));
    expect(fromFlag.code).toBe('MODEL_SPEC');
    expect(fromFlag.message).toContain('From the --model flag');
    expect(fromFlag.message).toContain('did you mean "openai:gpt-4o"?');

    const fromEnv = await rejection(resolveModelSpec({ env: { WEFT_MODEL: 'gpt-4o' }, probeOllama: noOllama }));
    expect(fromEnv.message).toContain('From the WEFT_MODEL environment variable');

    const badSim = await rejection(
      resolveModelSpec({ config: { model: 'sim:colour=blue' }, env: {}, probeOllama: noOllama }),
    );
    expect(badSim.code).toBe('MODEL_SPEC');
    expect(badSim.message).toContain('From the config file');
  });
});

describe('probeOllama', () => {
  it('asks GET /api/tags and picks the first chat model (skipping embedding models)', async () => {
    const replay = replayFetch('ollama/tags');
    expect(await probeOllama({ env: {}, fetch: replay.fetch })).toBe('llama3.2:1b');
    expect(replay.requests[0]?.url.href).toBe('http://127.0.0.1:11434/api/tags');
    expect(replay.requests[0]?.method).toBe('GET');
  });

  it('returns undefined when no server answers', async () => {
    expect(await probeOllama({ env: {}, fetch: unreachableFetch() })).toBeUndefined();
  });

  it('gives up after its timeout', async () => {
    let signal: AbortSignal | undefined;
    const hanging = ((_input: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        signal = init?.signal ?? undefined;
        signal?.addEventListener('abort', () => reject(signal?.reason), { once: true });
      })) as typeof globalThis.fetch;
    expect(await probeOllama({ env: {}, fetch: hanging, timeoutMs: 5 })).toBeUndefined();
    expect(signal?.aborted).toBe(true);
  });
});
