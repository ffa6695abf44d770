import { afterEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../../src/errors.js';
import { createSimilarity, parseSimilaritySpec } from '../../../src/eval/similarity-spec.js';
import {
  formatModelSpec,
  MODEL_SPEC_FORMS,
  parseModelSpec,
  requestedModelName,
  suggestProvider,
} from '../../../src/llm/model-spec.js';
import { listProviders, registerProvider } from '../../../src/llm/provider-registry.js';
import { createModel, NO_MODEL_MESSAGE, noModelMessage, resolveModelSpec } from '../../../src/llm/resolve-model.js';
import { echoProvider } from './echo-provider.js';
import { rejection } from './rejection.js';

describe('the provider registry', () => {
  let unregister: (() => void) | undefined;
  afterEach(() => {
    unregister?.();
    unregister = undefined;
  });

  it('lists the built-in providers in the order of the spec forms', () => {
    expect(listProviders().map((provider) => provider.name)).toEqual([
      'openai',
      'anthropic',
      'ollama',
      'openai-compatible',
      'local',
      'scripted',
      'sim',
    ]);
    expect(listProviders().map((provider) => provider.form)).toEqual(MODEL_SPEC_FORMS);
  });

  it('takes a new provider with one call, and createModel builds through it', async () => {
    const before = await rejection(createModel('echo:you said: '));
    expect(before.code).toBe('MODEL_SPEC');
    expect(before.message).toContain('unknown provider "echo"');

    unregister = registerProvider(echoProvider);
    const model = await createModel('echo:you said: ');
    expect(model.id).toBe('echo:you said:');
    const result = await model.generate({
      messages: [
        { role: 'user', content: 'first' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(result.text).toBe('you said:hello');
    expect(parseModelSpec('ECHO:x')).toEqual({ provider: 'echo', prefix: 'x' });
    expect(formatModelSpec({ provider: 'echo', prefix: 'x' })).toBe('echo:x');
    expect(requestedModelName('echo:x')).toBeUndefined();
    expect(await resolveModelSpec({ flag: 'echo:x', env: {} })).toEqual({ spec: 'echo:x', source: 'flag' });

    unregister();
    unregister = undefined;
    await rejection(createModel('echo:x'));
  });

  it('names registered providers in errors and suggestions', async () => {
    unregister = registerProvider(echoProvider);
    const tooLong = await rejection(createModel(`echo:${'x'.repeat(41)}`));
    expect(tooLong.message).toContain('longer than 40 characters');
    expect(tooLong.message).toContain(echoProvider.form);
    expect(suggestProvider('echoo')).toBe('echo');
    expect(suggestProvider('parrot')).toBe('echo');
    expect((await rejection(createModel('echoo:hi'))).message).toContain('did you mean "echo:hi"?');
    expect((await rejection(createModel('say hi'))).message).toContain('did you mean "echo:say hi"?');
    expect(noModelMessage()).toContain('sim:<options>, echo:<prefix>.');
    expect(NO_MODEL_MESSAGE).not.toContain('echo:');
  });

  it('serves the similarity spec too, when the provider can embed', async () => {
    unregister = registerProvider(echoProvider);
    expect(parseSimilaritySpec('echo:')).toEqual({ provider: 'echo', prefix: '' });
    const similarity = await createSimilarity('echo:');
    const [row] = await similarity.matrix(['listen'], ['silent', 'xyz']);
    expect(row?.[0]).toBeCloseTo(1);
    expect(row?.[1]).toBeCloseTo(0);
    const error = await rejection(createSimilarity(`echo:${'y'.repeat(41)}`));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain(echoProvider.embeddingForm);
  });

  it('refuses a taken name and a name that is not a lower-case word', () => {
    expect(() => registerProvider({ ...echoProvider, name: 'openai' })).toThrow(WeftError);
    expect(() => registerProvider({ ...echoProvider, name: 'Echo Two' })).toThrow(/lower-case word/);
    expect(listProviders().map((provider) => provider.name)).not.toContain('echo');
  });
});
