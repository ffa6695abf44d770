/**
 * From a model spec to a ChatModel, and from the user's configuration to a model spec.
 *
 * `resolveModelSpec` decides WHICH model (flag → config → WEFT_MODEL → API keys → a local Ollama);
 * `createModel` builds it. Neither reads `process.env` when an `env` is passed, so both are testable.
 */
import { WeftError } from '../errors.js';
import type { ChatModel } from './chat-model.js';
import { checkModelSpec, modelSpecForms, parseModelSpec, type ModelSpec } from './model-spec.js';
import type { NodeLlamaCppImporter } from './providers/local-gguf.js';
import { outputTokenLimits, withOutputLimit, type OutputTokenSetting } from './output-limit.js';
import type { Env } from './provider.js';
import { nonEmpty, ollamaHost } from './provider-env.js';
import { providerOf } from './provider-registry.js';
import { withResilience, type ResilienceOptions } from './resilient-model.js';

export type { Env } from './provider.js';
export { DEFAULT_OLLAMA_HOST, DEFAULT_OPENAI_BASE_URL, ollamaHost } from './provider-env.js';

export const DEFAULT_OPENAI_MODEL = 'openai:gpt-4o-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'anthropic:claude-3-5-haiku-latest';
/** How long `resolveModelSpec` waits for a local Ollama server to answer. */
export const OLLAMA_PROBE_TIMEOUT_MS = 500;

export interface CreateModelOptions {
  /** Environment for API keys and hosts (default `process.env`). */
  readonly env?: Env;
  /** Replaces global fetch for HTTP providers (tests replay recorded fixtures through it). */
  readonly fetch?: typeof globalThis.fetch;
  /** Base for relative `local:` and `scripted:` paths (default `process.cwd()`). */
  readonly cwd?: string;
  /** When given, the model is wrapped with timeout, concurrency and retries (see `withResilience`). */
  readonly resilience?: ResilienceOptions;
  /** Loads node-llama-cpp for `local:` (injectable for tests). */
  readonly importNodeLlamaCpp?: NodeLlamaCppImporter;
  /** Output-token limits by call purpose for real models (default `DEFAULT_MAX_OUTPUT_TOKENS`). */
  readonly maxOutputTokens?: OutputTokenSetting;
}

/** Builds the ChatModel a spec names. Throws MODEL_SPEC, MODEL_CONFIG, BAD_INPUT or MISSING_DEPENDENCY. */
export async function createModel(spec: string | ModelSpec, options: CreateModelOptions = {}): Promise<ChatModel> {
  const parsed = typeof spec === 'string' ? parseModelSpec(spec) : spec;
  const built = await buildModel(parsed, options);
  // Every real provider gets a limit on each call; scripted and sim models ignore it anyway.
  const limited = built.kind === 'real' ? withOutputLimit(built, outputTokenLimits(options.maxOutputTokens)) : built;
  const model = options.resilience ? withResilience(limited, options.resilience) : limited;
  // A model that cannot take tools natively (local GGUF, `?tools=prompted`, a registered provider that says nothing)
  // answers them through its text. Outermost, so each of the fallback's calls gets its own timeout and retries.
  if (model.toolCalling !== undefined) return model;
  const { withPromptedTools } = await import('./prompted-tools.js');
  return withPromptedTools(model);
}

/** Builds a model through the spec's provider; the SDKs load here, on first use, not when Weft is imported. */
async function buildModel(spec: ModelSpec, options: CreateModelOptions): Promise<ChatModel> {
  return providerOf(spec).create(spec, {
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.importNodeLlamaCpp ? { importNodeLlamaCpp: options.importNodeLlamaCpp } : {}),
  });
}

// ---------------------------------------------------------------------------------------------------------

export type ModelSpecSource = 'flag' | 'config' | 'WEFT_MODEL' | 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY' | 'ollama';

export interface ResolveModelSpecOptions {
  /** `--model` on the command line. */
  readonly flag?: string;
  /** The parsed `.weft/config.yaml`. */
  readonly config?: { readonly model?: string };
  readonly env?: Env;
  /** Returns the name of a model a local Ollama server has, or undefined (default: `probeOllama`). */
  readonly probeOllama?: () => Promise<string | undefined>;
}

export interface ResolvedModelSpec {
  readonly spec: string;
  readonly source: ModelSpecSource;
}

/**
 * Which model to use, first match wins: `--model`, config `model:`, WEFT_MODEL, OPENAI_API_KEY
 * (→ openai:gpt-4o-mini), ANTHROPIC_API_KEY (→ anthropic:claude-3-5-haiku-latest), then the first model of an
 * Ollama server on localhost. Explicit specs are validated here, so a typo fails before any work starts.
 */
export async function resolveModelSpec(options: ResolveModelSpecOptions = {}): Promise<ResolvedModelSpec> {
  const env = options.env ?? process.env;
  if (options.flag !== undefined) return checked(options.flag, 'flag', 'the --model flag');
  const configured = nonEmpty(options.config?.model);
  if (configured !== undefined) return checked(configured, 'config', 'the config file (.weft/config.yaml, key model)');
  const fromEnv = nonEmpty(env['WEFT_MODEL']);
  if (fromEnv !== undefined) return checked(fromEnv, 'WEFT_MODEL', 'the WEFT_MODEL environment variable');
  if (nonEmpty(env['OPENAI_API_KEY']) !== undefined) return { spec: DEFAULT_OPENAI_MODEL, source: 'OPENAI_API_KEY' };
  if (nonEmpty(env['ANTHROPIC_API_KEY']) !== undefined)
    return { spec: DEFAULT_ANTHROPIC_MODEL, source: 'ANTHROPIC_API_KEY' };
  const probe = options.probeOllama ?? (() => probeOllama({ env }));
  const ollamaModel = await probe().catch(() => undefined);
  if (ollamaModel) return { spec: `ollama:${ollamaModel}`, source: 'ollama' };
  throw new WeftError('MODEL_CONFIG', noModelMessage());
}

/** What to do when no model is configured; the spec forms are the registered providers'. */
export function noModelMessage(): string {
  return [
    'No model is configured. Choose one of:',
    '  --model <spec>                    on the command line, e.g. --model openai:gpt-4o-mini',
    '  .weft/config.yaml                 a line "model: <spec>", e.g. model: ollama:llama3.2',
    '  WEFT_MODEL=<spec>                 environment variable, e.g. WEFT_MODEL=anthropic:claude-3-5-haiku-latest',
    `  OPENAI_API_KEY=<key>              uses ${DEFAULT_OPENAI_MODEL}`,
    `  ANTHROPIC_API_KEY=<key>           uses ${DEFAULT_ANTHROPIC_MODEL}`,
    '  a running Ollama (ollama serve)   uses its first model (ollama pull llama3.2); OLLAMA_HOST moves it',
    ...wrapList(
      'Specs: ',
      modelSpecForms().map((form) => form.split(/\s+/)[0] ?? form),
    ),
  ].join('\n');
}

/** The message with the built-in providers. */
export const NO_MODEL_MESSAGE = noModelMessage();

/** `Specs: a, b, c,` / `       d, e.`: the items after a label, in lines of at most 100 characters. */
function wrapList(label: string, items: readonly string[]): string[] {
  const lines: string[] = [];
  let line = label;
  items.forEach((item, index) => {
    const text = `${item}${index === items.length - 1 ? '.' : ','}`;
    if (line.trim() !== label.trim() && line.length + 1 + text.length > 100) {
      lines.push(line);
      line = ' '.repeat(label.length);
    }
    line += line.endsWith(' ') ? text : ` ${text}`;
  });
  return [...lines, line];
}

function checked(spec: string, source: ModelSpecSource, where: string): ResolvedModelSpec {
  try {
    const parsed = parseModelSpec(spec);
    // What the spec grammar leaves to the provider (e.g. the sim model's options) is checked now too.
    checkModelSpec(parsed);
  } catch (error) {
    if (error instanceof WeftError) {
      throw new WeftError(error.code, `From ${where}: ${error.message}`, { cause: error });
    }
    throw error;
  }
  return { spec: spec.trim(), source };
}

export interface ProbeOllamaOptions {
  readonly env?: Env;
  readonly fetch?: typeof globalThis.fetch;
  readonly timeoutMs?: number;
}

/**
 * Asks an Ollama server (OLLAMA_HOST or 127.0.0.1:11434) for its models via GET /api/tags and returns the
 * first chat model's name, or undefined when no server answers in time or it has no models.
 */
export async function probeOllama(options: ProbeOllamaOptions = {}): Promise<string | undefined> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  let host: string;
  try {
    host = ollamaHost(options.env ?? process.env);
  } catch {
    return undefined;
  }
  try {
    const response = await fetchImpl(`${host}/api/tags`, {
      signal: AbortSignal.timeout(options.timeoutMs ?? OLLAMA_PROBE_TIMEOUT_MS),
    });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    const names = modelNames(body);
    // Embedding-only models cannot chat; prefer anything else.
    return names.find((name) => !/embed/i.test(name)) ?? names[0];
  } catch {
    return undefined;
  }
}

function modelNames(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || !('models' in body) || !Array.isArray(body.models)) return [];
  const names: string[] = [];
  for (const entry of body.models as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const record = entry as Record<string, unknown>;
    const name = record['name'] ?? record['model'];
    if (typeof name === 'string' && name !== '') names.push(name);
  }
  return names;
}
