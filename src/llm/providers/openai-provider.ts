/** `openai:<model>`: OpenAI's API (OPENAI_API_KEY, OPENAI_BASE_URL), for chat and embeddings. */
import type { ModelProviderDescriptor } from '../provider.js';
import { DEFAULT_OPENAI_BASE_URL, nonEmpty, requireKey } from '../provider-env.js';
import { namedModel, type NamedModelSpec } from './named-model-spec.js';

const named = namedModel('openai');

export const openaiProvider: ModelProviderDescriptor<NamedModelSpec> = {
  ...named,
  form: 'openai:<model>                       e.g. openai:gpt-4o-mini',
  aliases: ['gpt', 'chatgpt', 'open-ai'],
  suggest: (text) => (/^(gpt-|o\d|chatgpt|text-embedding-)/i.test(text) ? `openai:${text}` : undefined),
  async create(spec, { env, fetch }) {
    const id = named.format(spec);
    const { createOpenAICompatibleModel } = await import('./openai-compatible.js');
    return createOpenAICompatibleModel({
      id,
      model: spec.model,
      apiKey: requireKey(env, 'OPENAI_API_KEY', `The model ${id}`),
      baseURL: nonEmpty(env['OPENAI_BASE_URL']) ?? DEFAULT_OPENAI_BASE_URL,
      providerName: 'OpenAI',
      apiKeyEnv: 'OPENAI_API_KEY',
      // OpenAI deprecated max_tokens; its reasoning models accept only max_completion_tokens.
      maxTokensField: 'max_completion_tokens',
      ...(spec.tools === 'prompted' ? { toolCalling: 'prompted' as const } : {}),
      ...(fetch ? { fetch } : {}),
    });
  },
  embeddingForm: 'openai:<model>                       e.g. openai:text-embedding-3-small (needs OPENAI_API_KEY)',
  async createEmbedding(spec, { env, fetch }) {
    const id = `openai:${spec.model}`;
    const apiKey = requireKey(env, 'OPENAI_API_KEY', `The similarity ${id}`);
    const { createOpenAIEmbedder } = await import('./openai-embeddings.js');
    const embedder = createOpenAIEmbedder({
      model: spec.model,
      apiKey,
      baseURL: nonEmpty(env['OPENAI_BASE_URL']) ?? DEFAULT_OPENAI_BASE_URL,
      providerName: 'OpenAI',
      apiKeyEnv: 'OPENAI_API_KEY',
      ...(fetch ? { fetch } : {}),
    });
    return { embedder, cacheKey: id };
  },
};
