import { describe, expect, it } from 'vitest';
import { WeftError } from '../../../src/errors.js';
import { formatModelSpec, parseModelSpec, suggestProvider, type ModelSpec } from '../../../src/llm/model-spec.js';

function specError(text: string): WeftError {
  try {
    parseModelSpec(text);
  } catch (error) {
    expect(error).toBeInstanceOf(WeftError);
    return error as WeftError;
  }
  throw new Error(`expected "${text}" to be rejected`);
}

describe('the ?tools option', () => {
  it('round-trips, keeps the credentials out of the description, and rejects unknown options', async () => {
    const { describeModelSpec, requestedModelName } = await import('../../../src/llm/model-spec.js');
    const spec = parseModelSpec('openai-compatible:http://user:secret@h:1/v1#m?tools=prompted');
    expect(formatModelSpec(spec)).toBe('openai-compatible:http://user:secret@h:1/v1#m?tools=prompted');
    expect(describeModelSpec(spec)).not.toContain('secret');
    expect(requestedModelName('ollama:llama3.2:1b?tools=prompted')).toBe('llama3.2:1b');
    expect(specError('ollama:m?tools=prompted&color=red').message).toContain('unknown option "color=red"');
    expect(specError('ollama:?tools=prompted').message).toContain('the model name after "ollama:" is empty');
    expect(specError('openai:m?tools').message).toContain('"tools" takes "prompted"');
  });
});

describe('parseModelSpec', () => {
  it.each<[string, ModelSpec]>([
    ['openai:gpt-4o-mini', { provider: 'openai', model: 'gpt-4o-mini' }],
    ['anthropic:claude-3-5-haiku-latest', { provider: 'anthropic', model: 'claude-3-5-haiku-latest' }],
    // Ollama tags contain colons: only the first colon separates the provider.
    ['ollama:llama3.2:1b', { provider: 'ollama', model: 'llama3.2:1b' }],
    [
      'openai-compatible:http://localhost:8080/v1#qwen2.5:0.5b',
      { provider: 'openai-compatible', baseURL: 'http://localhost:8080/v1', model: 'qwen2.5:0.5b' },
    ],
    [
      'openai-compatible:https://api.together.xyz/v1/#meta-llama/Llama-3-8b-chat-hf',
      { provider: 'openai-compatible', baseURL: 'https://api.together.xyz/v1', model: 'meta-llama/Llama-3-8b-chat-hf' },
    ],
    ['local:../models/llama-2-tiny-random.gguf', { provider: 'local', path: '../models/llama-2-tiny-random.gguf' }],
    ['local:C:\\models\\tiny.GGUF', { provider: 'local', path: 'C:\\models\\tiny.GGUF' }],
    ['scripted:test/fixtures/replies.json', { provider: 'scripted', path: 'test/fixtures/replies.json' }],
    ['scripted:./replies.js', { provider: 'scripted', path: './replies.js' }],
    [
      'sim:latency=lognormal(3,0.5),fail=0.1,badjson=0.05,error=0.02,seed=7',
      { provider: 'sim', options: 'latency=lognormal(3,0.5),fail=0.1,badjson=0.05,error=0.02,seed=7' },
    ],
    ['sim:', { provider: 'sim', options: '' }],
    // `?tools=prompted`: the model answers tool calls in its text (prompted-tools.ts).
    ['ollama:qwen2.5:0.5b?tools=prompted', { provider: 'ollama', model: 'qwen2.5:0.5b', tools: 'prompted' }],
    ['openai:gpt-4o-mini?tools=native', { provider: 'openai', model: 'gpt-4o-mini' }],
    [
      'openai-compatible:http://user:pw@localhost:8080/v1?x=1#Qwen/Qwen2.5-0.5B?tools=prompted',
      {
        provider: 'openai-compatible',
        baseURL: 'http://user:pw@localhost:8080/v1?x=1',
        model: 'Qwen/Qwen2.5-0.5B',
        tools: 'prompted',
      },
    ],
    ['  OpenAI:gpt-4o  ', { provider: 'openai', model: 'gpt-4o' }],
  ])('parses %s', (text, expected) => {
    expect(parseModelSpec(text)).toEqual(expected);
  });

  it('round-trips through formatModelSpec', () => {
    for (const text of [
      'openai:gpt-4o-mini',
      'ollama:llama3.2:1b',
      'openai-compatible:http://127.0.0.1:8080/v1#tiny',
      'local:/models/a.gguf',
      'scripted:r.json',
      'sim:seed=1',
    ]) {
      expect(formatModelSpec(parseModelSpec(text))).toBe(text);
    }
  });

  it.each<[string, RegExp]>([
    ['', /the spec is empty/],
    ['   ', /the spec is empty/],
    ['openai:', /model name after "openai:" is empty/],
    ['anthropic:  ', /model name after "anthropic:" is empty/],
    ['openai-compatible:http://localhost:8080/v1', /no "#" before the model name/],
    ['openai-compatible:http://localhost:8080/v1#', /model name after "#" is empty/],
    ['openai-compatible:#tiny', /base URL before "#" is empty/],
    ['openai-compatible:localhost 8080#tiny', /"localhost 8080" is not a valid URL/],
    ['openai-compatible:ftp://host/v1#tiny', /must use http or https/],
    ['local:', /path after "local:" is empty/],
    ['local:model.bin', /takes a path to a \.gguf file/],
    ['scripted:replies.yaml', /takes a \.json or \.js file/],
    ['gemini:pro', /unknown provider "gemini"/],
  ])('rejects %j: %s', (text, problem) => {
    const error = specError(text);
    expect(error.code).toBe('MODEL_SPEC');
    expect(error.message).toMatch(problem);
    // Every message lists the valid forms.
    expect(error.message).toContain('Valid forms:');
    expect(error.message).toContain('openai-compatible:<baseURL>#<model>');
    expect(error.message).toContain('sim:<options>');
  });

  it('suggests the provider a misspelt prefix meant', () => {
    expect(specError('opena:gpt-4o').message).toContain('did you mean "openai:gpt-4o"?');
    expect(specError('antropic:claude-3-5-haiku-latest').message).toContain(
      'did you mean "anthropic:claude-3-5-haiku-latest"?',
    );
    expect(specError('olama:llama3.2').message).toContain('did you mean "ollama:llama3.2"?');
    expect(specError('claude:claude-3-opus').message).toContain('did you mean "anthropic:claude-3-opus"?');
    expect(specError('gguf:model.gguf').message).toContain('did you mean "local:model.gguf"?');
    expect(specError('gemini:pro').message).not.toContain('did you mean');
  });

  it('suggests a prefix when there is none', () => {
    expect(specError('gpt-4o-mini').message).toMatch(/no provider prefix \(did you mean "openai:gpt-4o-mini"\?\)/);
    expect(specError('claude-3-5-haiku-latest').message).toContain('did you mean "anthropic:claude-3-5-haiku-latest"?');
    expect(specError('models/tiny.gguf').message).toContain('did you mean "local:models/tiny.gguf"?');
    expect(specError('llama3.2').message).toContain('did you mean "ollama:llama3.2"?');
  });

  it('suggestProvider allows about one typo per three letters', () => {
    expect(suggestProvider('openia')).toBe('openai');
    expect(suggestProvider('SIM')).toBe('sim');
    expect(suggestProvider('scriptd')).toBe('scripted');
    expect(suggestProvider('xyz')).toBeUndefined();
  });
});
