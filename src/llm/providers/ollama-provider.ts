/** `ollama:<model>`: an Ollama server (OLLAMA_HOST, default 127.0.0.1:11434) through its OpenAI-compatible `/v1`. */
import type { ModelProviderDescriptor } from '../provider.js';
import { ollamaHost } from '../provider-env.js';
import { namedModel, type NamedModelSpec } from './named-model-spec.js';

const named = namedModel('ollama');

export const ollamaProvider: ModelProviderDescriptor<NamedModelSpec> = {
  ...named,
  form: 'ollama:<model>                       e.g. ollama:llama3.2:1b',
  async create(spec, { env, fetch }) {
    const baseURL = `${ollamaHost(env)}/v1`;
    const { createOpenAICompatibleModel } = await import('./openai-compatible.js');
    return createOpenAICompatibleModel({
      id: named.format(spec),
      model: spec.model,
      apiKey: 'ollama', // required by the SDK, ignored by Ollama
      baseURL,
      providerName: 'Ollama',
      // Ollama answers `tools` with an error for models whose template has none; `?tools=prompted` avoids that.
      ...(spec.tools === 'prompted' ? { toolCalling: 'prompted' as const } : {}),
      ...(fetch ? { fetch } : {}),
    });
  },
  embeddingForm:
    'ollama:<model>                       e.g. ollama:nomic-embed-text (at OLLAMA_HOST, default 127.0.0.1:11434)',
  async createEmbedding(spec, { env, fetch }) {
    const baseURL = `${ollamaHost(env)}/v1`;
    const { createOpenAIEmbedder } = await import('./openai-embeddings.js');
    const embedder = createOpenAIEmbedder({
      model: spec.model,
      apiKey: 'ollama', // required by the SDK, ignored by Ollama
      baseURL,
      providerName: 'Ollama',
      ...(fetch ? { fetch } : {}),
    });
    return { embedder, cacheKey: `ollama:${spec.model}` };
  },
};
