/**
 * Which similarity WorfEval matches nodes with, as one string (`weft eval --similarity`, `weft bench`):
 *
 *   lexical (default) · openai:<model> · ollama:<model> · openai-compatible:<baseURL>#<model> · local:<path.gguf>
 *
 * The same providers and environment variables as the model spec (src/llm/model-spec.ts), for embedding models.
 * Parsing is pure; `createSimilarity` builds the similarity a spec names.
 */
import { WeftError } from '../errors.js';
import { formatModelSpec, parseModelSpec, type ModelSpec, type SpecProblem } from '../llm/model-spec.js';
import type { ModelProviderDescriptor } from '../llm/provider.js';
import { findProvider, listProviders, providerAliases, providerOf } from '../llm/provider-registry.js';
import type { NodeLlamaCppImporter } from '../llm/providers/local-gguf.js';
import type { Env } from '../llm/resolve-model.js';
import { closestWord } from '../text/edit-distance.js';
import { openEmbeddingCache } from './embedding-cache.js';
import { createEmbeddingSimilarity } from './embedding-similarity.js';
import { createLexicalSimilarity } from './lexical-similarity.js';
import type { Similarity } from './similarity.js';

/** A model spec whose provider can embed (see `embeddingProviders`); parsed by `parseModelSpec`, so both grammars stay one. */
export type EmbeddingSpec = ModelSpec;

export type SimilaritySpec = { readonly provider: 'lexical' } | EmbeddingSpec;

export type SimilarityProvider = SimilaritySpec['provider'];

export const DEFAULT_SIMILARITY_SPEC = 'lexical';

const LEXICAL_FORM = 'lexical                              the offline default: TF-IDF over word and character n-grams';

/** The registered providers that can embed, in the registry's order. */
function embeddingProviders(): ModelProviderDescriptor[] {
  return listProviders().filter((provider) => provider.createEmbedding !== undefined);
}

/** One line per accepted form of every registered provider that embeds; part of every spec error message. */
export function similaritySpecForms(): string[] {
  return [
    LEXICAL_FORM,
    ...embeddingProviders().map((provider) => provider.embeddingForm ?? `${provider.name}:<model>`),
  ];
}

/** The accepted forms with the built-in providers. */
export const SIMILARITY_SPEC_FORMS: readonly string[] = similaritySpecForms();

/** Misspellings and near-synonyms of `lexical`; the providers' own come from the registry. */
const LEXICAL_ALIASES: readonly string[] = ['tfidf', 'tf-idf', 'lexicon', 'offline', 'default'];

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
  const why = chatOnlyReason(prefix);
  if (why) fail(`${why}; use one of the embedding providers below`);
  if (findProvider(prefix)?.createEmbedding !== undefined) {
    // The embedding providers read exactly as in a model spec; only the error message is the similarity's.
    return parseModelSpec(text, fail);
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
  const { embedder, cacheKey } = await createEmbedder(parsed, options);
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

/** Builds the embedder through the spec's provider; its SDK loads here, on first use. */
async function createEmbedder(spec: EmbeddingSpec, options: CreateSimilarityOptions) {
  const provider = providerOf(spec);
  if (provider.createEmbedding === undefined) {
    return failSimilaritySpec(
      formatModelSpec(spec),
      `${provider.noEmbedding ?? `"${provider.name}:" cannot embed`}; use one of the embedding providers below`,
    );
  }
  return provider.createEmbedding(spec, {
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.importer ? { importNodeLlamaCpp: options.importer } : {}),
  });
}

/** Why a chat-only provider (by name or alias, e.g. `claude`) cannot embed, or undefined. */
function chatOnlyReason(prefix: string): string | undefined {
  const provider = findProvider(prefix) ?? findProvider(providerAliases()[prefix] ?? '');
  return provider && provider.createEmbedding === undefined
    ? (provider.noEmbedding ?? `"${provider.name}:" is not an embedding model`)
    : undefined;
}

function failSimilaritySpec(text: string, problem: string): never {
  throw new WeftError(
    'BAD_INPUT',
    [
      `Invalid similarity spec "${text}": ${problem}.`,
      'Accepted forms:',
      ...similaritySpecForms().map((form) => `  ${form}`),
    ].join('\n'),
    { location: { field: 'similarity' } },
  );
}

/** For a spec without a colon: what it most likely meant. */
function suggestPrefix(spec: string): string {
  const lower = spec.toLowerCase();
  const known = suggestProvider(lower);
  if (known === 'lexical') return ' (did you mean "lexical"?)';
  if (known) return ` (did you mean "${known}:<model>"?)`;
  for (const provider of embeddingProviders()) {
    const suggestion = provider.suggest?.(spec);
    if (suggestion !== undefined) return ` (did you mean "${suggestion}"?)`;
  }
  return ` (did you mean "ollama:${spec}"?)`;
}

/** The provider a misspelt word most likely meant, or undefined when nothing is close (about one typo per three letters). */
function suggestProvider(word: string): SimilarityProvider | undefined {
  const providers = embeddingProviders();
  const aliases: Record<string, string> = providerAliases(providers);
  for (const alias of LEXICAL_ALIASES) aliases[alias] = 'lexical';
  return closestWord(word, ['lexical', ...providers.map((provider) => provider.name)], aliases);
}
