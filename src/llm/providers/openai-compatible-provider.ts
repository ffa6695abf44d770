/**
 * `openai-compatible:<baseURL>#<model>`: any server speaking OpenAI's API (llama.cpp, vLLM, LM Studio, TEI, …),
 * keyed by WEFT_API_KEY or OPENAI_API_KEY when it needs a key; for chat and embeddings.
 */
import { redactUrl } from '../../text/redact-url.js';
import type { ModelProviderDescriptor, SpecProblem } from '../provider.js';
import { nonEmpty } from '../provider-env.js';
import { formatSpecOptions, splitSpecOptions } from './named-model-spec.js';

export type OpenAICompatibleSpec = {
  readonly provider: 'openai-compatible';
  readonly baseURL: string;
  readonly model: string;
  /** `?tools=prompted` after the model: the server's model has no native tool calling. */
  readonly tools?: 'prompted';
};

const format = (spec: OpenAICompatibleSpec) =>
  `openai-compatible:${spec.baseURL}#${spec.model}${formatSpecOptions(spec)}`;
const apiKeyOf = (env: Readonly<Record<string, string | undefined>>) =>
  nonEmpty(env['WEFT_API_KEY']) ?? nonEmpty(env['OPENAI_API_KEY']);

export const openaiCompatibleProvider: ModelProviderDescriptor<OpenAICompatibleSpec> = {
  name: 'openai-compatible',
  form: 'openai-compatible:<baseURL>#<model>  e.g. openai-compatible:http://localhost:8080/v1#qwen2.5-0.5b',
  aliases: ['azure', 'compatible', 'openai_compatible', 'openaicompatible', 'vllm', 'lmstudio', 'tei'],
  parse,
  format,
  describe: (spec) => redactUrl(format(spec)).display,
  requestedModel: (spec) => spec.model,
  suggest: (text) => (/^https?:\/\//i.test(text) ? `openai-compatible:${text}#<model>` : undefined),
  async create(spec, { env, fetch }) {
    const { createOpenAICompatibleModel } = await import('./openai-compatible.js');
    return createOpenAICompatibleModel({
      id: format(spec),
      model: spec.model,
      // Local servers (llama.cpp, vLLM, LM Studio) usually need no key, but the SDK insists on one.
      apiKey: apiKeyOf(env) ?? 'none',
      baseURL: spec.baseURL,
      providerName: 'OpenAI-compatible server',
      apiKeyEnv: 'WEFT_API_KEY (or OPENAI_API_KEY)',
      ...(spec.tools === 'prompted' ? { toolCalling: 'prompted' as const } : {}),
      ...(fetch ? { fetch } : {}),
    });
  },
  embeddingForm:
    'openai-compatible:<baseURL>#<model>  e.g. openai-compatible:http://localhost:8080/v1#bge-small-en-v1.5',
  async createEmbedding(spec, { env, fetch }) {
    const apiKey = apiKeyOf(env);
    const { createOpenAIEmbedder } = await import('./openai-embeddings.js');
    const embedder = createOpenAIEmbedder({
      model: spec.model,
      ...(apiKey !== undefined ? { apiKey } : {}),
      baseURL: spec.baseURL,
      providerName: 'OpenAI-compatible server',
      apiKeyEnv: 'WEFT_API_KEY (or OPENAI_API_KEY)',
      ...(fetch ? { fetch } : {}),
    });
    // The tools option does not change embeddings.
    return { embedder, cacheKey: format({ provider: spec.provider, baseURL: spec.baseURL, model: spec.model }) };
  },
};

function parse(rest: string, fail: SpecProblem): OpenAICompatibleSpec {
  if (rest === '') fail('the "<baseURL>#<model>" after "openai-compatible:" is empty');
  const hash = rest.lastIndexOf('#');
  if (hash < 0) {
    fail(`"openai-compatible:" needs "<baseURL>#<model>" but there is no "#" before the model name in "${rest}"`);
  }
  const baseURL = rest.slice(0, hash).trim();
  const { body: model, tools } = splitSpecOptions(rest.slice(hash + 1).trim(), fail);
  if (baseURL === '') fail('the base URL before "#" is empty');
  if (model === '') fail('the model name after "#" is empty');
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return fail(`"${baseURL}" is not a valid URL (expected e.g. http://localhost:8080/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    fail(`the base URL must use http or https, got "${url.protocol}"`);
  }
  return { provider: 'openai-compatible', baseURL: baseURL.replace(/\/+$/, ''), model, ...(tools ? { tools } : {}) };
}
