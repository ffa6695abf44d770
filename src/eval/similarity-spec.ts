/**
 * Which similarity WorfEval matches nodes with, as one string (`weft eval --similarity`, `weft bench`):
 *
 *   lexical (default) · openai:<model> · ollama:<model> · openai-compatible:<baseURL>#<model> · local:<path.gguf>
 *
 * The same providers and environment variables as the model spec (src/llm/model-spec.ts), for embedding models.
 * Parsing is pure; `createSimilarity` builds the similarity a spec names.
 */
import { resolve as resolvePath } from 'node:path';
import { WeftError } from '../errors.js';
import { formatModelSpec, parseModelSpec, type ModelSpec, type SpecProblem } from '../llm/model-spec.js';
import { assertModelFile, importNodeLlamaCpp, type NodeLlamaCppImporter } from '../llm/providers/local-gguf.js';
import { DEFAULT_OPENAI_BASE_URL, ollamaHost, type Env } from '../llm/resolve-model.js';
import { closestWord } from '../text/edit-distance.js';
import { openEmbeddingCache } from './embedding-cache.js';
import { createEmbeddingSimilarity, type Embedder } from './embedding-similarity.js';
import { createLexicalSimilarity } from './lexical-similarity.js';
import { createLocalEmbedder } from './local-embeddings.js';
import { createOpenAIEmbedder } from './openai-embeddings.js';
import type { Similarity } from './similarity.js';

/** The embedding providers of the model spec; parsed by `parseModelSpec`, so both grammars stay one. */
export type EmbeddingSpec = Extract<ModelSpec, { readonly provider: 'openai' | 'ollama' | 'openai-compatible' | 'local' }>;

export type SimilaritySpec = { readonly provider: 'lexical' } | EmbeddingSpec;

export type SimilarityProvider = SimilaritySpec['provider'];

export const DEFAULT_SIMILARITY_SPEC = 'lexical';

const EMBEDDING_PROVIDERS: readonly EmbeddingSpec['provider'][] = ['openai', 'ollama', 'openai-compatible', 'local'];
const PROVIDERS: readonly SimilarityProvider[] = ['lexical', ...EMBEDDING_PROVIDERS];

/** One line per accepted form, with an example; part of every spec error message. */
export const SIMILARITY_SPEC_FORMS: readonly string[] = [
  'lexical                              the offline default: TF-IDF over word and character n-grams',
  'openai:<model>                       e.g. openai:text-embedding-3-small (needs OPENAI_API_KEY)',
  'ollama:<model>                       e.g. ollama:nomic-embed-text (at OLLAMA_HOST, default 127.0.0.1:11434)',
  'openai-compatible:<baseURL>#<model>  e.g. openai-compatible:http://localhost:8080/v1#bge-small-en-v1.5',
  'local:<path.gguf>                    e.g. local:./models/nomic-embed-text-v1.5.Q8_0.gguf',
];

/** Misspellings and near-synonyms, mapped to what was probably meant. */
const ALIASES: Readonly<Record<string, SimilarityProvider>> = {
  tfidf: 'lexical',
  'tf-idf': 'lexical',
  lexicon: 'lexical',
  offline: 'lexical',
  default: 'lexical',
  gpt: 'openai',
  'open-ai': 'openai',
  azure: 'openai-compatible',
  compatible: 'openai-compatible',
  openai_compatible: 'openai-compatible',
  openaicompatible: 'openai-compatible',
  vllm: 'openai-compatible',
  lmstudio: 'openai-compatible',
  tei: 'openai-compatible',
  gguf: 'local',
  'llama-cpp': 'local',
  'llama.cpp': 'local',
  llamacpp: 'local',
  'node-llama-cpp': 'local',
};

/** Chat-only providers of the model spec, with why they cannot embed. */
const NOT_EMBEDDINGS: Readonly<Record<string, string>> = {
  anthropic: 'Anthropic has no embeddings API',
  claude: 'Anthropic has no embeddings API',
  scripted: '"scripted:" is a chat model for tests, not an embedding model',
  sim: '"sim:" is a simulated chat model, not an embedding model',
};

/** Parses a similarity spec; no spec means the default, `lexical`. Throws BAD_INPUT listing the accepted forms. */
export function parseSimilaritySpec(text: string | undefined): SimilaritySpec {
  if (text === undefined) return { provider: 'lexical' };
  const fail: SpecProblem = (problem) => failSimilaritySpec(text, problem);
  const spec = text.trim();
  if (spec === '') fail('the spec is empty');
  if (spec.toLowerCase() === 'lexical') return { provider: 'lexical' };
  if (/^https?:\/\//i.test(spec)) {
    const hint = spec.includes('#') ? `openai-compatible:${spec}` : `openai-compatible:${spec}#<model>`;
    fail(`a URL needs the "openai-compatible:" prefix (did you mean "${hint}"?)`);
  }

  const colon = spec.indexOf(':');
  if (colon < 0) fail(`it is not "lexical" and has no provider prefix${suggestPrefix(spec)}`);
  const prefix = spec.slice(0, colon).toLowerCase();
  const rest = spec.slice(colon + 1).trim();

  if (prefix === 'lexical') {
    if (rest === '') return { provider: 'lexical' };
    fail(`"lexical" takes no options, got "${rest}" (write just "lexical")`);
  }
  const why = Object.hasOwn(NOT_EMBEDDINGS, prefix) ? NOT_EMBEDDINGS[prefix] : undefined;
  if (why) fail(`${why}; use one of the embedding providers below`);
  if (isEmbeddingProvider(prefix)) {
    // The embedding providers read exactly as in a model spec; only the error message is the similarity's.
    const parsed = parseModelSpec(text, fail);
    if (isEmbeddingSpec(parsed)) return parsed;
  }
  const guess = suggestProvider(prefix);
  const hint = guess ? ` (did you mean "${guess === 'lexical' ? 'lexical' : `${guess}:${rest}`}"?)` : '';
  return fail(`unknown provider "${prefix}"${hint}`);
}

/** The canonical string form of a spec; `parseSimilaritySpec(formatSimilaritySpec(s))` equals `s`. */
export function formatSimilaritySpec(spec: SimilaritySpec): string {
  return spec.provider === 'lexical' ? 'lexical' : formatModelSpec(spec);
}

export interface CreateSimilarityOptions {
  /** Texts to fit the lexical similarity's idf on (e.g. every gold node text). Embeddings ignore it. */
  readonly corpus?: readonly string[];
  /** Folder of the on-disk embedding cache; without it, embeddings are cached in memory only. */
  readonly cacheDir?: string;
  /** Environment for API keys and hosts (default `process.env`). */
  readonly env?: Env;
  /** Replaces global fetch for HTTP providers (tests replay recorded fixtures through it). */
  readonly fetch?: typeof globalThis.fetch;
  /** Loads node-llama-cpp for `local:` (injectable for tests). */
  readonly importer?: NodeLlamaCppImporter;
  /** Base for a relative `local:` path (default `process.cwd()`). */
  readonly cwd?: string;
  /** Texts per embedding request (default 64). */
  readonly batchSize?: number;
  /** Told about unreadable embedding cache lines and failed cache writes. */
  readonly onWarning?: (message: string) => void;
}

/**
 * Builds the similarity a spec names (no spec: lexical). Throws BAD_INPUT for a bad spec or a missing model
 * file, MODEL_CONFIG for a missing API key or a bad OLLAMA_HOST, MISSING_DEPENDENCY without node-llama-cpp.
 */
export async function createSimilarity(
  spec: string | SimilaritySpec | undefined,
  options: CreateSimilarityOptions = {},
): Promise<Similarity> {
  const parsed = typeof spec === 'object' ? spec : parseSimilaritySpec(spec);
  if (parsed.provider === 'lexical') return createLexicalSimilarity(options.corpus ? { corpus: options.corpus } : {});

  const id = formatSimilaritySpec(parsed);
  const { embedder, cacheKey } = await createEmbedder(parsed, id, options);
  return createEmbeddingSimilarity({
    name: `embeddings ${id}`,
    model: cacheKey,
    embed: embedder.embed,
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.cacheDir !== undefined
      ? {
          cache: openEmbeddingCache({
            directory: options.cacheDir,
            model: cacheKey,
            ...(options.onWarning ? { onWarning: options.onWarning } : {}),
          }),
        }
      : {}),
    ...(embedder.close ? { close: () => embedder.close?.() ?? Promise.resolve() } : {}),
  });
}

async function createEmbedder(
  spec: EmbeddingSpec,
  id: string,
  options: CreateSimilarityOptions,
): Promise<{ embedder: Embedder; cacheKey: string }> {
  const env = options.env ?? process.env;
  const fetch = options.fetch ? { fetch: options.fetch } : {};
  switch (spec.provider) {
    case 'openai': {
      const apiKey = nonEmpty(env['OPENAI_API_KEY']);
      if (apiKey === undefined) {
        throw new WeftError('MODEL_CONFIG', `The similarity ${id} needs an API key: set the OPENAI_API_KEY environment variable.`, {
          location: { field: 'OPENAI_API_KEY' },
        });
      }
      const embedder = createOpenAIEmbedder({
        model: spec.model,
        apiKey,
        baseURL: nonEmpty(env['OPENAI_BASE_URL']) ?? DEFAULT_OPENAI_BASE_URL,
        providerName: 'OpenAI',
        apiKeyEnv: 'OPENAI_API_KEY',
        ...fetch,
      });
      return { embedder, cacheKey: id };
    }
    case 'ollama': {
      const embedder = createOpenAIEmbedder({
        model: spec.model,
        apiKey: 'ollama', // required by the SDK, ignored by Ollama
        baseURL: `${ollamaHost(env)}/v1`,
        providerName: 'Ollama',
        ...fetch,
      });
      return { embedder, cacheKey: id };
    }
    case 'openai-compatible': {
      const apiKey = nonEmpty(env['WEFT_API_KEY']) ?? nonEmpty(env['OPENAI_API_KEY']);
      const embedder = createOpenAIEmbedder({
        model: spec.model,
        ...(apiKey !== undefined ? { apiKey } : {}),
        baseURL: spec.baseURL,
        providerName: 'OpenAI-compatible server',
        apiKeyEnv: 'WEFT_API_KEY (or OPENAI_API_KEY)',
        ...fetch,
      });
      return { embedder, cacheKey: id };
    }
    case 'local': {
      const path = resolvePath(options.cwd ?? process.cwd(), spec.path);
      // Fail now, with a clear message, rather than on the first sample.
      await assertModelFile(path);
      await importNodeLlamaCpp(options.importer);
      const embedder = createLocalEmbedder({ path, ...(options.importer ? { importer: options.importer } : {}) });
      // By absolute path: the same relative path from another folder is another file.
      return { embedder, cacheKey: `local:${path}` };
    }
  }
}

function isEmbeddingProvider(provider: string): provider is EmbeddingSpec['provider'] {
  return (EMBEDDING_PROVIDERS as readonly string[]).includes(provider);
}

function isEmbeddingSpec(spec: ModelSpec): spec is EmbeddingSpec {
  return isEmbeddingProvider(spec.provider);
}

function failSimilaritySpec(text: string, problem: string): never {
  throw new WeftError(
    'BAD_INPUT',
    [`Invalid similarity spec "${text}": ${problem}.`, 'Accepted forms:', ...SIMILARITY_SPEC_FORMS.map((form) => `  ${form}`)].join('\n'),
    { location: { field: 'similarity' } },
  );
}

/** For a spec without a colon: what it most likely meant. */
function suggestPrefix(spec: string): string {
  const lower = spec.toLowerCase();
  const known = suggestProvider(lower);
  if (known === 'lexical') return ' (did you mean "lexical"?)';
  if (known) return ` (did you mean "${known}:<model>"?)`;
  if (lower.endsWith('.gguf')) return ` (did you mean "local:${spec}"?)`;
  if (/^text-embedding-/.test(lower)) return ` (did you mean "openai:${spec}"?)`;
  return ` (did you mean "ollama:${spec}"?)`;
}

/** The provider a misspelt word most likely meant, or undefined when nothing is close (about one typo per three letters). */
function suggestProvider(word: string): SimilarityProvider | undefined {
  return closestWord(word, PROVIDERS, ALIASES);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
