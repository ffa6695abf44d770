/**
 * A ChatModel running a local GGUF file in-process with node-llama-cpp. node-llama-cpp is an optional,
 * heavy dependency (prebuilt native binaries), so it is imported lazily and only when a `local:` model is
 * used; without it the provider fails with a MISSING_DEPENDENCY error that says how to install it.
 */
import { existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { WeftError } from '../../errors.js';
import type { ChatCall, ChatModel, ChatResult } from '../chat-model.js';
import { toGrammarSubset } from '../json-schema.js';
import { cutStreamError } from '../cut-stream-error.js';

export const NODE_LLAMA_CPP_INSTALL_HINT =
  'The local: provider needs node-llama-cpp. Install it in your project with: npm install node-llama-cpp @node-llama-cpp/linux-x64 --omit=optional (in a Weft checkout: npm run setup:local)';

/** Default bound on generated tokens when the call sets none. */
export const LOCAL_DEFAULT_MAX_TOKENS = 1024;

// ---- The slice of node-llama-cpp's API Weft uses (typed here: the package is optional). ----

type HistoryItem =
  | { type: 'system'; text: string }
  | { type: 'user'; text: string }
  | { type: 'model'; response: string[] };

interface TokenMeterState {
  readonly usedInputTokens: number;
  readonly usedOutputTokens: number;
}

interface LlamaContextSequence {
  readonly tokenMeter: { getState(): TokenMeterState };
  clearHistory(): Promise<void>;
}

interface LlamaContext {
  readonly contextSize: number;
  getSequence(): LlamaContextSequence;
  dispose(): Promise<void>;
}

/** What `createEmbeddingContext` returns; the local embedder (src/eval/local-embeddings.ts) uses it. */
export interface LlamaEmbeddingContext {
  getEmbeddingFor(text: string): Promise<{ readonly vector: readonly number[] }>;
  dispose(): Promise<void>;
}

type ContextSize = number | 'auto' | { min?: number; max?: number };

export interface LlamaModel {
  createContext(options?: { threads?: number; contextSize?: ContextSize }): Promise<LlamaContext>;
  createEmbeddingContext(options?: { threads?: number; contextSize?: ContextSize }): Promise<LlamaEmbeddingContext>;
  dispose(): Promise<void>;
}

interface LlamaGrammar {
  readonly __brand?: 'LlamaGrammar';
}

interface Llama {
  loadModel(options: { modelPath: string }): Promise<LlamaModel>;
  createGrammarForJsonSchema(schema: Record<string, unknown>): Promise<LlamaGrammar>;
  getGrammarFor(type: 'json'): Promise<LlamaGrammar>;
  dispose(): Promise<void>;
}

interface LlamaChatSession {
  setChatHistory(history: HistoryItem[]): void;
  prompt(
    text: string,
    options?: {
      maxTokens?: number;
      temperature?: number;
      grammar?: LlamaGrammar;
      signal?: AbortSignal;
      responsePrefix?: string;
      onTextChunk?: (text: string) => void;
    },
  ): Promise<string>;
  dispose(options?: { disposeSequence?: boolean }): void;
}

export interface NodeLlamaCppModule {
  getLlama(options?: { maxThreads?: number; logLevel?: string; gpu?: false | 'auto' }): Promise<Llama>;
  LlamaChatSession: new (options: {
    contextSequence: LlamaContextSequence;
    systemPrompt?: string;
    autoDisposeSequence?: boolean;
  }) => LlamaChatSession;
}

/** Loads the node-llama-cpp module; injectable so tests can simulate its absence. */
export type NodeLlamaCppImporter = () => Promise<unknown>;

// A variable specifier keeps TypeScript from resolving the (optional, usually absent) package at build time.
const NODE_LLAMA_CPP = 'node-llama-cpp';
/**
 * `npm run setup:local` installs node-llama-cpp beside a Weft checkout (in `.local-llm/`), because installing it
 * into the checkout with --omit=optional would prune the test tools' own optional binaries. Both src/ and dist/
 * sit two folders below the package root.
 */
const SIDE_INSTALL = new URL('../../../.local-llm/node_modules/node-llama-cpp/dist/index.js', import.meta.url);
const defaultImporter: NodeLlamaCppImporter = async () => {
  try {
    return await import(NODE_LLAMA_CPP);
  } catch (error) {
    if (!existsSync(SIDE_INSTALL)) throw error;
    return import(SIDE_INSTALL.href);
  }
};

/** Imports node-llama-cpp, or throws WeftError('MISSING_DEPENDENCY') with the install command. */
export async function importNodeLlamaCpp(
  importer: NodeLlamaCppImporter = defaultImporter,
): Promise<NodeLlamaCppModule> {
  let module: unknown;
  try {
    module = await importer();
  } catch (error) {
    throw new WeftError('MISSING_DEPENDENCY', NODE_LLAMA_CPP_INSTALL_HINT, { cause: error });
  }
  if (!isNodeLlamaCpp(module)) {
    throw new WeftError(
      'MISSING_DEPENDENCY',
      `node-llama-cpp loaded but does not export getLlama and LlamaChatSession (version 3 is required). ${NODE_LLAMA_CPP_INSTALL_HINT}`,
    );
  }
  return module;
}

function isNodeLlamaCpp(module: unknown): module is NodeLlamaCppModule {
  if (typeof module !== 'object' || module === null) return false;
  const record = module as Record<string, unknown>;
  return typeof record['getLlama'] === 'function' && typeof record['LlamaChatSession'] === 'function';
}

/** Throws WeftError('BAD_INPUT') naming the path when the model file cannot be read. */
export async function assertModelFile(path: string): Promise<void> {
  try {
    await access(path);
  } catch (error) {
    throw new WeftError('BAD_INPUT', `The local model file ${path} does not exist or cannot be read`, {
      cause: error,
      location: { file: path },
    });
  }
}

/** Where a local GGUF model comes from and what it may use; shared by the chat model and the local embedder. */
export interface LocalLlamaOptions {
  /** Path of the .gguf file (absolute, or relative to the process's working directory). */
  readonly path: string;
  readonly importer?: NodeLlamaCppImporter;
  /** CPU threads (default 1: node-llama-cpp's default of 4 on a 2-core machine is ~40x slower). */
  readonly threads?: number;
  /** Upper bound of the context in tokens (default 4096 for chat, 2048 for embeddings; less when the model trained on less). */
  readonly contextSize?: number;
}

/** node-llama-cpp, a llama instance, a model loaded from a GGUF file, and a context created on it. */
export interface LoadedLocalLlama<Context extends { dispose(): Promise<void> }> {
  readonly module: NodeLlamaCppModule;
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: Context;
  /** Frees the context, the model and the llama instance, in that order. */
  dispose(): Promise<void>;
}

export interface LoadLocalLlamaOptions<Context> extends LocalLlamaOptions {
  /** Names the model in the load error, e.g. `local model`. */
  readonly label: string;
  /** Creates the context on the loaded model (given the thread count to use). */
  createContext(model: LlamaModel, threads: number): Promise<Context>;
}

/**
 * Loads node-llama-cpp, the GGUF file and a context. Throws BAD_INPUT naming the file when it is missing or
 * will not load, MISSING_DEPENDENCY without node-llama-cpp; frees what was loaded before a failure.
 */
export async function loadLocalLlama<Context extends { dispose(): Promise<void> }>(
  options: LoadLocalLlamaOptions<Context>,
): Promise<LoadedLocalLlama<Context>> {
  const threads = options.threads ?? 1;
  await assertModelFile(options.path);
  const module = await importNodeLlamaCpp(options.importer);
  const llama = await module.getLlama({ maxThreads: threads, logLevel: 'error' });
  try {
    const model = await llama.loadModel({ modelPath: options.path });
    try {
      const context = await options.createContext(model, threads);
      return {
        module,
        llama,
        model,
        context,
        async dispose() {
          await context.dispose();
          await model.dispose();
          await llama.dispose();
        },
      };
    } catch (error) {
      await model.dispose().catch(() => undefined);
      throw error;
    }
  } catch (error) {
    await llama.dispose().catch(() => undefined);
    throw new WeftError('BAD_INPUT', `Could not load the ${options.label} ${options.path}: ${messageOf(error)}`, {
      cause: error,
      location: { file: options.path },
    });
  }
}

export interface LocalGgufModelOptions extends LocalLlamaOptions {
  /** The spec string, e.g. `local:./models/smollm2-360m.gguf`. */
  readonly id: string;
  /** Hard upper bound on generated tokens, whatever the call asks (default 2048). */
  readonly maxTokensCap?: number;
}

export interface LocalGgufModel extends ChatModel {
  /** Loads node-llama-cpp, the model and a context now instead of on the first call. */
  load(): Promise<void>;
  /** Frees the context, model and llama instance. The model loads again if used afterwards. */
  dispose(): Promise<void>;
}

interface Loaded extends LoadedLocalLlama<LlamaContext> {
  readonly sequence: LlamaContextSequence;
  readonly grammars: Map<string, Promise<LlamaGrammar>>;
}

export function createLocalGgufModel(options: LocalGgufModelOptions): LocalGgufModel {
  const maxTokensCap = options.maxTokensCap ?? 2048;
  let loading: Promise<Loaded> | undefined;
  // One context sequence holds one conversation at a time: calls run one after another.
  let queue: Promise<unknown> = Promise.resolve();

  async function load(): Promise<Loaded> {
    const loaded = await loadLocalLlama({
      ...options,
      label: 'local model',
      createContext: (model, threads) =>
        model.createContext({ threads, contextSize: { max: options.contextSize ?? 4096 } }),
    });
    return { ...loaded, sequence: loaded.context.getSequence(), grammars: new Map() };
  }

  function loaded(): Promise<Loaded> {
    loading ??= load().catch((error: unknown) => {
      loading = undefined; // let a later call try again (e.g. after installing node-llama-cpp)
      throw error;
    });
    return loading;
  }

  function grammarFor(state: Loaded, json: NonNullable<ChatCall['json']>): Promise<LlamaGrammar> {
    const key = json.schema ? JSON.stringify(json.schema) : '';
    let grammar = state.grammars.get(key);
    if (!grammar) {
      grammar = json.schema
        ? // node-llama-cpp supports a subset of JSON schema; for anything else constrain to plain JSON and
          // let the caller's validation and re-prompting do the rest.
          state.llama
            .createGrammarForJsonSchema(toGrammarSubset(json.schema))
            .catch(() => state.llama.getGrammarFor('json'))
        : state.llama.getGrammarFor('json');
      state.grammars.set(key, grammar);
    }
    return grammar;
  }

  async function run(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
    throwIfAborted(signal, options.id);
    const state = await loaded();
    throwIfAborted(signal, options.id);

    const { history, prompt, responsePrefix } = toSessionInput(call);
    const grammar = call.json ? await grammarFor(state, call.json) : undefined;
    const maxTokens = Math.max(
      1,
      Math.min(call.maxTokens ?? LOCAL_DEFAULT_MAX_TOKENS, maxTokensCap, state.context.contextSize),
    );

    await state.sequence.clearHistory();
    const session = new state.module.LlamaChatSession({ contextSequence: state.sequence, autoDisposeSequence: false });
    const before = state.sequence.tokenMeter.getState();
    // node-llama-cpp hands each piece of text to onTextChunk as it is generated (the prefix is not among them).
    let streamed = '';
    const onStream = call.onStream;
    try {
      session.setChatHistory(history);
      const reply = await session.prompt(prompt, {
        maxTokens,
        ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
        ...(grammar ? { grammar } : {}),
        ...(signal ? { signal } : {}),
        ...(responsePrefix !== undefined ? { responsePrefix } : {}),
        ...(onStream
          ? {
              onTextChunk: (piece: string) => {
                streamed += piece;
                onStream({ kind: 'delta', text: piece });
              },
            }
          : {}),
      });
      // node-llama-cpp returns the prefix plus its continuation; like Anthropic's prefill, return only the new text.
      const text =
        responsePrefix !== undefined && reply.startsWith(responsePrefix) ? reply.slice(responsePrefix.length) : reply;
      const after = state.sequence.tokenMeter.getState();
      return {
        text,
        usage: {
          inputTokens: after.usedInputTokens - before.usedInputTokens,
          outputTokens: after.usedOutputTokens - before.usedOutputTokens,
        },
        model: options.path,
      };
    } catch (error) {
      if (signal?.aborted) {
        throw cutStreamError(
          new WeftError('ABORTED', `${options.id}: the call was aborted`, { cause: error, retryable: false }),
          streamed,
        );
      }
      if (error instanceof WeftError) throw cutStreamError(error, streamed);
      throw cutStreamError(
        new WeftError('PROVIDER', `${options.id}: generation failed: ${messageOf(error)}`, {
          cause: error,
          retryable: false,
        }),
        streamed,
      );
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  return {
    id: options.id,
    kind: 'real',
    generate(call, signal) {
      const result = queue.then(() => run(call, signal));
      queue = result.catch(() => undefined);
      return result;
    },
    async load() {
      await loaded();
    },
    async dispose() {
      const pending = loading;
      loading = undefined;
      if (!pending) return;
      await (await pending.catch(() => undefined))?.dispose();
    },
  };
}

/**
 * ChatCall → node-llama-cpp chat history plus the prompt to answer. The last user message is the prompt;
 * a trailing assistant message becomes a response prefix (the reply continues it and excludes it).
 */
function toSessionInput(call: ChatCall): { history: HistoryItem[]; prompt: string; responsePrefix?: string } {
  const messages = [...call.messages];
  let responsePrefix: string | undefined;
  if (messages.at(-1)?.role === 'assistant') responsePrefix = messages.pop()?.content;
  const last = messages.at(-1);
  const prompt = last?.role === 'user' ? (messages.pop()?.content ?? '') : '';
  const history: HistoryItem[] = [];
  if (call.system !== undefined && call.system !== '') history.push({ type: 'system', text: call.system });
  for (const message of messages) {
    history.push(
      message.role === 'user'
        ? { type: 'user', text: message.content }
        : { type: 'model', response: [message.content] },
    );
  }
  return { history, prompt, ...(responsePrefix !== undefined ? { responsePrefix } : {}) };
}

function throwIfAborted(signal: AbortSignal | undefined, id: string): void {
  if (signal?.aborted) {
    throw new WeftError('ABORTED', `${id}: the call was aborted`, { cause: signal.reason, retryable: false });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
