/**
 * What a model provider is to Weft: how its part of a model spec reads and prints, and how it builds a ChatModel
 * (and, optionally, an embedder for WorfEval's similarity). One file per provider exports one descriptor;
 * `provider-registry.ts` lists them. Descriptors stay light: SDKs and model code are imported inside `create`.
 */
import type { ChatModel } from './chat-model.js';
import type { Embedder } from './embedder.js';
import type { NodeLlamaCppImporter } from './providers/local-gguf.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** A parsed model spec: the provider's name and whatever fields that provider parsed out of the rest. */
export type ModelSpec = { readonly provider: string; readonly [field: string]: unknown };

/** Reports what is wrong with a spec (e.g. `the spec is empty`); never returns. */
export type SpecProblem = (problem: string) => never;

/** What building a model may depend on besides the spec; filled with defaults by `createModel`. */
export interface ProviderCreateOptions {
  /** Environment for API keys and hosts. */
  readonly env: Env;
  /** Base for relative paths in a spec. */
  readonly cwd: string;
  /** Replaces global fetch for HTTP providers. */
  readonly fetch?: typeof globalThis.fetch;
  /** Loads node-llama-cpp (for `local:`). */
  readonly importNodeLlamaCpp?: NodeLlamaCppImporter;
}

/** An embedding model built from a spec, and the key its embeddings are cached under. */
export interface CreatedEmbedder {
  readonly embedder: Embedder;
  readonly cacheKey: string;
}

export interface ModelProviderDescriptor<Spec extends ModelSpec = ModelSpec> {
  /** The spec prefix, lower case: `openai` in `openai:gpt-4o-mini`. */
  readonly name: string;
  /** One line for error messages: the form and an example, e.g. `openai:<model>   e.g. openai:gpt-4o-mini`. */
  readonly form: string;
  /** Misspellings and brand names meaning this provider (lower case), for "did you mean". */
  readonly aliases?: readonly string[];
  /** Parses what follows `<name>:` (trimmed); reports a problem through `fail`. */
  parse(rest: string, fail: SpecProblem): Spec;
  /** The canonical string form; parsing it gives the same spec back. */
  format(spec: Spec): string;
  /** The spec fit to print or store: credentials removed. */
  describe(spec: Spec): string;
  /** The model name asked of the provider's API (what a call is priced by), if the spec names one. */
  requestedModel?(spec: Spec): string | undefined;
  /** For a spec with no prefix: the spec the user probably meant, when this provider recognizes the text. */
  suggest?(text: string): string | undefined;
  /** Checks what `parse` leaves to `create` (e.g. the sim model's options), so a typo fails before any work. */
  check?(spec: Spec): void;
  create(spec: Spec, options: ProviderCreateOptions): Promise<ChatModel>;
  /** The similarity spec's form line, for providers that can embed. */
  readonly embeddingForm?: string;
  /** Why this provider cannot embed, for the similarity spec's error (providers without `createEmbedding`). */
  readonly noEmbedding?: string;
  createEmbedding?(spec: Spec, options: ProviderCreateOptions): Promise<CreatedEmbedder>;
}
