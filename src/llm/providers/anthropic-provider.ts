/** `anthropic:<model>`: Anthropic's Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL); chat only. */
import type { ModelProviderDescriptor } from '../provider.js';
import { nonEmpty, requireKey } from '../provider-env.js';
import { namedModel, type NamedModelSpec } from './named-model-spec.js';

const named = namedModel('anthropic');

export const anthropicProvider: ModelProviderDescriptor<NamedModelSpec> = {
  ...named,
  form: 'anthropic:<model>                    e.g. anthropic:claude-3-5-haiku-latest',
  aliases: ['claude'],
  suggest: (text) => (/^claude/i.test(text) ? `anthropic:${text}` : undefined),
  async create(spec, { env, fetch }) {
    const id = named.format(spec);
    const apiKey = requireKey(env, 'ANTHROPIC_API_KEY', `The model ${id}`);
    const baseURL = nonEmpty(env['ANTHROPIC_BASE_URL']);
    const { createAnthropicModel } = await import('./anthropic.js');
    return createAnthropicModel({
      id,
      model: spec.model,
      apiKey,
      ...(spec.tools === 'prompted' ? { toolCalling: 'prompted' as const } : {}),
      ...(baseURL ? { baseURL } : {}),
      ...(fetch ? { fetch } : {}),
    });
  },
  noEmbedding: 'Anthropic has no embeddings API',
};
