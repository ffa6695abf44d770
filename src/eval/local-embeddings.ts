/**
 * Embeddings from a local GGUF model through node-llama-cpp, in-process and offline. node-llama-cpp is optional
 * and imported lazily, as for the `local:` chat model; without it the embedder fails with MISSING_DEPENDENCY
 * and the install command. Best with an embedding model (nomic-embed-text, bge, all-MiniLM… as GGUF); a chat
 * model also works, with worse vectors.
 */
import { WeftError } from '../errors.js';
import { assertModelFile, importNodeLlamaCpp, type NodeLlamaCppImporter } from '../llm/providers/local-gguf.js';
import type { Embedder } from './embedding-similarity.js';

// ---- The slice of node-llama-cpp's API used here (typed here: the package is optional). ----

interface LlamaEmbeddingContext {
  getEmbeddingFor(text: string): Promise<{ readonly vector: readonly number[] }>;
  dispose(): Promise<void>;
}

interface LlamaModel {
  createEmbeddingContext(options?: {
    threads?: number;
    contextSize?: number | 'auto' | { min?: number; max?: number };
  }): Promise<LlamaEmbeddingContext>;
  dispose(): Promise<void>;
}

interface Llama {
  loadModel(options: { modelPath: string }): Promise<LlamaModel>;
  dispose(): Promise<void>;
}

interface EmbeddingModule {
  getLlama(options?: { maxThreads?: number; logLevel?: string }): Promise<Llama>;
}

export interface LocalEmbedderOptions {
  /** Path of the .gguf file (absolute, or relative to the working directory). */
  readonly path: string;
  readonly importer?: NodeLlamaCppImporter;
  /** CPU threads (default 1: node-llama-cpp's default of 4 is far slower on a 2-core machine). */
  readonly threads?: number;
  /** Upper bound of the context in tokens, i.e. of one text (default 2048; less when the model trained on less). */
  readonly contextSize?: number;
}

export interface LocalEmbedder extends Embedder {
  /** Loads node-llama-cpp and the model now instead of on the first call. */
  load(): Promise<void>;
  /** Frees the context, model and llama instance; they load again if used afterwards. */
  close(): Promise<void>;
}

interface Loaded {
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: LlamaEmbeddingContext;
}

export function createLocalEmbedder(options: LocalEmbedderOptions): LocalEmbedder {
  const threads = options.threads ?? 1;
  const id = `local:${options.path}`;
  let loading: Promise<Loaded> | undefined;
  // One context embeds one text at a time: calls run one after another.
  let queue: Promise<unknown> = Promise.resolve();

  async function load(): Promise<Loaded> {
    await assertModelFile(options.path);
    // importNodeLlamaCpp checks the exports a chat model needs; getLlama is all this uses of them.
    const module = (await importNodeLlamaCpp(options.importer)) as unknown as EmbeddingModule;
    const llama = await module.getLlama({ maxThreads: threads, logLevel: 'error' });
    try {
      const model = await llama.loadModel({ modelPath: options.path });
      try {
        const context = await model.createEmbeddingContext({ threads, contextSize: { max: options.contextSize ?? 2048 } });
        return { llama, model, context };
      } catch (error) {
        await model.dispose().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      await llama.dispose().catch(() => undefined);
      throw new WeftError('BAD_INPUT', `Could not load the local embedding model ${options.path}: ${messageOf(error)}`, {
        cause: error,
        location: { file: options.path },
      });
    }
  }

  function loaded(): Promise<Loaded> {
    loading ??= load().catch((error: unknown) => {
      loading = undefined; // let a later call try again (e.g. after installing node-llama-cpp)
      throw error;
    });
    return loading;
  }

  async function run(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const state = await loaded();
    const vectors: number[][] = [];
    for (const text of texts) {
      throwIfAborted(signal, id);
      try {
        vectors.push([...(await state.context.getEmbeddingFor(text)).vector]);
      } catch (error) {
        throw new WeftError('PROVIDER', `${id}: could not embed ${JSON.stringify(text.slice(0, 60))}: ${messageOf(error)}`, {
          cause: error,
          retryable: false,
        });
      }
    }
    return vectors;
  }

  return {
    model: id,
    embed(texts, signal) {
      throwIfAborted(signal, id);
      const result = queue.then(() => run(texts, signal));
      queue = result.catch(() => undefined);
      return result;
    },
    async load() {
      await loaded();
    },
    async close() {
      await queue; // let the texts being embedded finish first
      const pending = loading;
      loading = undefined;
      if (!pending) return;
      const state = await pending.catch(() => undefined);
      if (!state) return;
      await state.context.dispose();
      await state.model.dispose();
      await state.llama.dispose();
    },
  };
}

function throwIfAborted(signal: AbortSignal | undefined, id: string): void {
  if (signal?.aborted) throw new WeftError('ABORTED', `${id}: the call was aborted`, { cause: signal.reason, retryable: false });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
