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
import { assertModelFile, importNodeLlamaCpp, type NodeLlamaCppImporter } from '../llm/providers/local-gguf.js';
import { DEFAULT_OPENAI_BASE_URL, ollamaHost, type Env } from '../llm/resolve-model.js';
import { openEmbeddingCache } from './embedding-cache.js';
import { createEmbeddingSimilarity, type Embedder } from './embedding-similarity.js';
import { createLexicalSimilarity } from './lexical-similarity.js';
import { createLocalEmbedder } from './local-embeddings.js';
import { createOpenAIEmbedder } from './openai-embeddings.js';
import type { Similarity } from './similarity.js';

export type SimilaritySpec =
  | { readonly provider: 'lexical' }
  | { readonly provider: 'openai'; readonly model: string }
  | { readonly provider: 'ollama'; readonly model: string }
  | { readonly provider: 'openai-compatible'; readonly baseURL: string; readonly model: string }
  | { readonly provider: 'local'; readonly path: string };

export type SimilarityProvider = SimilaritySpec['provider'];

export const DEFAULT_SIMILARITY_SPEC = 'lexical';

const PROVIDERS: readonly SimilarityProvider[] = ['lexical', 'openai', 'ollama', 'openai-compatible', 'local'];

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
  const spec = text.trim();
  if (spec === '') fail(text, 'the spec is empty');
  if (spec.toLowerCase() === 'lexical') return { provider: 'lexical' };
  if (/^https?:\/\//i.test(spec)) {
    const hint = spec.includes('#') ? `openai-compatible:${spec}` : `openai-compatible:${spec}#<model>`;
    fail(text, `a URL needs the "openai-compatible:" prefix (did you mean "${hint}"?)`);
  }

  const colon = spec.indexOf(':');
  if (colon < 0) fail(text, `it is not "lexical" and has no provider prefix${suggestPrefix(spec)}`);
  const prefix = spec.slice(0, colon).toLowerCase();
  const rest = spec.slice(colon + 1).trim();

  switch (prefix) {
    case 'lexical':
      if (rest === '') return { provider: 'lexical' };
      return fail(text, `"lexical" takes no options, got "${rest}" (write just "lexical")`);
    case 'openai':
    case 'ollama':
      if (rest === '') fail(text, `the model name after "${prefix}:" is empty`);
      return { provider: prefix, model: rest };
    case 'openai-compatible':
      return parseOpenAICompatible(text, rest);
    case 'local':
      if (rest === '') fail(text, 'the path after "local:" is empty');
      if (!rest.toLowerCase().endsWith('.gguf')) fail(text, `"local:" takes a path to a .gguf file, got "${rest}"`);
      return { provider: 'local', path: rest };
    default: {
      const why = NOT_EMBEDDINGS[prefix];
      if (why) return fail(text, `${why}; use one of the embedding providers below`);
      const guess = suggestProvider(prefix);
      const hint = guess ? ` (did you mean "${guess === 'lexical' ? 'lexical' : `${guess}:${rest}`}"?)` : '';
      return fail(text, `unknown provider "${prefix}"${hint}`);
    }
  }
}

/** The canonical string form of a spec; `parseSimilaritySpec(formatSimilaritySpec(s))` equals `s`. */
export function formatSimilaritySpec(spec: SimilaritySpec): string {
  switch (spec.provider) {
    case 'lexical':
      return 'lexical';
    case 'openai':
    case 'ollama':
      return `${spec.provider}:${spec.model}`;
    case 'openai-compatible':
      return `openai-compatible:${spec.baseURL}#${spec.model}`;
    case 'local':
      return `local:${spec.path}`;
  }
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
  spec: Exclude<SimilaritySpec, { provider: 'lexical' }>,
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

function parseOpenAICompatible(text: string, rest: string): SimilaritySpec {
  if (rest === '') fail(text, 'the "<baseURL>#<model>" after "openai-compatible:" is empty');
  const hash = rest.lastIndexOf('#');
  if (hash < 0) fail(text, `"openai-compatible:" needs "<baseURL>#<model>" but there is no "#" before the model name in "${rest}"`);
  const baseURL = rest.slice(0, hash).trim();
  const model = rest.slice(hash + 1).trim();
  if (baseURL === '') fail(text, 'the base URL before "#" is empty');
  if (model === '') fail(text, 'the model name after "#" is empty');
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return fail(text, `"${baseURL}" is not a valid URL (expected e.g. http://localhost:8080/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(text, `the base URL must use http or https, got "${url.protocol}"`);
  return { provider: 'openai-compatible', baseURL: baseURL.replace(/\/+$/, ''), model };
}

function fail(text: string, problem: string): never {
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

/** The provider a misspelt word most likely meant, or undefined when nothing is close. */
function suggestProvider(word: string): SimilarityProvider | undefined {
  const lower = word.toLowerCase();
  const alias = ALIASES[lower];
  if (alias) return alias;
  let best: SimilarityProvider | undefined;
  let bestDistance = Infinity;
  for (const provider of PROVIDERS) {
    const distance = editDistance(lower, provider);
    if (distance < bestDistance) {
      best = provider;
      bestDistance = distance;
    }
  }
  // About one typo per three letters, at least one.
  return bestDistance <= Math.max(1, Math.floor((best?.length ?? 0) / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
