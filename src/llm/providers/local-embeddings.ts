/**
 * Embeddings from a local GGUF model through node-llama-cpp, in-process and offline. node-llama-cpp is optional
 * and imported lazily, as for the `local:` chat model; without it the embedder fails with MISSING_DEPENDENCY
 * and the install command. Best with an embedding model (nomic-embed-text, bge, all-MiniLM… as GGUF); a chat
 * model also works, with worse vectors.
 */
import { WeftError } from '../../errors.js';
import {
  loadLocalLlama,
  type LlamaEmbeddingContext,
  type LoadedLocalLlama,
  type LocalLlamaOptions,
} from './local-gguf.js';
import type { Embedder } from '../embedder.js';

/** The .gguf path, node-llama-cpp importer, CPU threads (default 1) and context bound in tokens (default 2048). */
export type LocalEmbedderOptions = LocalLlamaOptions;

export interface LocalEmbedder extends Embedder {
  /** Loads node-llama-cpp and the model now instead of on the first call. */
  load(): Promise<void>;
  /** Frees the context, model and llama instance; they load again if used afterwards. */
  close(): Promise<void>;
}

type Loaded = LoadedLocalLlama<LlamaEmbeddingContext>;

export function createLocalEmbedder(options: LocalEmbedderOptions): LocalEmbedder {
  const id = `local:${options.path}`;
  let loading: Promise<Loaded> | undefined;
  // One context embeds one text at a time: calls run one after another.
  let queue: Promise<unknown> = Promise.resolve();

  function load(): Promise<Loaded> {
    return loadLocalLlama({
      ...options,
      label: 'local embedding model',
      createContext: (model, threads) =>
        model.createEmbeddingContext({ threads, contextSize: { max: options.contextSize ?? 2048 } }),
    });
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
        throw new WeftError(
          'PROVIDER',
          `${id}: could not embed ${JSON.stringify(text.slice(0, 60))}: ${messageOf(error)}`,
          {
            cause: error,
            retryable: false,
          },
        );
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
      await (await pending.catch(() => undefined))?.dispose();
    },
  };
}

function throwIfAborted(signal: AbortSignal | undefined, id: string): void {
  if (signal?.aborted)
    throw new WeftError('ABORTED', `${id}: the call was aborted`, { cause: signal.reason, retryable: false });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
