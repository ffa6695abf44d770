/**
 * A Similarity from any embedding model: `embed(texts)` gives one vector per text, and the similarity of two
 * texts is the cosine of their vectors, as in the paper (which uses Sentence-BERT). Each distinct text is
 * embedded once per instance: vectors are kept in memory by text, looked up in an optional on-disk cache next,
 * and only the rest is sent to the model, in batches.
 */
import { isAbortError, WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { throwIfAborted } from '../llm/timeout.js';
import { unitCosine, unitVector } from './cosine.js';
import type { EmbeddingCache } from './embedding-cache.js';
import type { Similarity } from './similarity.js';

import type { EmbedFunction } from '../llm/embedder.js';

// The embedder types live with the providers that build them (llm/); re-exported for WorfEval's callers.
export type { EmbedFunction, Embedder } from '../llm/embedder.js';

export interface EmbeddingSimilarityOptions {
  /** Shown in reports, e.g. `embeddings ollama:nomic-embed-text`. */
  readonly name: string;
  /** What identifies the model (the cache is kept per model). */
  readonly model: string;
  readonly embed: EmbedFunction;
  /** Texts per `embed` call (default 64). */
  readonly batchSize?: number;
  readonly cache?: EmbeddingCache;
  /** Releases what `embed` holds (a loaded model, …). */
  readonly close?: () => Promise<void>;
}

export interface EmbeddingSimilarity extends Similarity {
  readonly kind: 'embedding';
  readonly model: string;
}

export const DEFAULT_EMBEDDING_BATCH_SIZE = 64;

/** A text's vector scaled to length 1; undefined for a zero or empty vector, whose cosine with anything is 0. */
type Unit = Float64Array | undefined;

interface Claim {
  readonly text: string;
  readonly promise: Promise<Unit>;
  settled: boolean;
  resolve(unit: Unit): void;
  reject(error: unknown): void;
}

export function createEmbeddingSimilarity(options: EmbeddingSimilarityOptions): EmbeddingSimilarity {
  const batchSize = options.batchSize ?? DEFAULT_EMBEDDING_BATCH_SIZE;
  integerOption(batchSize, 'batchSize', { min: 1 });
  const { name, cache } = options;
  // Promises, so that concurrent calls asking for the same text share one embedding.
  const known = new Map<string, Promise<Unit>>();
  let dimension: { readonly size: number; readonly from: string } | undefined;

  /** Checks a vector against the dimension seen so far; `from` says where it came from, for messages. */
  function toUnit(vector: unknown, from: 'model' | 'cache', position: number): Unit {
    if (
      !Array.isArray(vector) ||
      !vector.every((component) => typeof component === 'number' && Number.isFinite(component))
    ) {
      throw new WeftError('PROVIDER', `${name}: vector ${position + 1} of the batch is not a list of finite numbers`, {
        retryable: false,
      });
    }
    const numbers = vector as number[];
    // An empty vector is what a model gives a text without tokens (""): no direction, cosine 0.
    if (numbers.length === 0) return undefined;
    const source = from === 'model' ? 'the model' : `the embedding cache ${cache?.location ?? ''}`;
    if (!dimension) dimension = { size: numbers.length, from: source };
    else if (numbers.length !== dimension.size) {
      const message = `${name}: ${source} gave a ${numbers.length}-dimensional vector, but ${dimension.from} gave ${dimension.size} dimensions before`;
      if (from === 'cache' || dimension.from !== 'the model') {
        throw new WeftError(
          'BAD_INPUT',
          `${message}; if the model changed, delete ${cache?.location ?? 'the cache file'}`,
          {
            ...(cache ? { location: { file: cache.location } } : {}),
          },
        );
      }
      throw new WeftError('PROVIDER', message, { retryable: false });
    }
    return unitVector(numbers);
  }

  async function embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    let vectors: unknown;
    try {
      vectors = await options.embed(texts, signal);
    } catch (error) {
      if (error instanceof WeftError || isAbortError(error)) throw error;
      throw new WeftError(
        'PROVIDER',
        `${name}: embedding failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
          retryable: false,
        },
      );
    }
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      const got = Array.isArray(vectors)
        ? `${vectors.length} vector${vectors.length === 1 ? '' : 's'}`
        : `a ${typeof vectors}`;
      throw new WeftError('PROVIDER', `${name}: asked for ${texts.length} embeddings in one batch, got ${got}`, {
        retryable: false,
      });
    }
    return vectors as number[][];
  }

  /** Embeds the claimed texts: cache first, then the model in batches. Settles every claim. */
  async function fill(claims: Claim[], signal: AbortSignal | undefined): Promise<void> {
    try {
      let todo = claims;
      if (cache) {
        const found = await cache.lookup(claims.map((claim) => claim.text));
        todo = [];
        claims.forEach((claim, position) => {
          const vector = found.get(claim.text);
          if (vector) settle(claim, toUnit(vector, 'cache', position));
          else todo.push(claim);
        });
      }
      for (let start = 0; start < todo.length; start += batchSize) {
        throwIfAborted(signal);
        const batch = todo.slice(start, start + batchSize);
        const vectors = await embedBatch(
          batch.map((claim) => claim.text),
          signal,
        );
        const units = vectors.map((vector, position) => toUnit(vector, 'model', position));
        batch.forEach((claim, position) => settle(claim, units[position]));
        // After each batch, so an interrupted run keeps what it paid for.
        await cache?.store(batch.map((claim, position) => ({ text: claim.text, vector: vectors[position] ?? [] })));
      }
    } catch (error) {
      for (const claim of claims) {
        if (claim.settled) continue;
        // Forget the failed text so that a later call tries again.
        if (known.get(claim.text) === claim.promise) known.delete(claim.text);
        claim.settled = true;
        claim.reject(error);
      }
      throw error;
    }
  }

  async function unitsOf(texts: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, Unit>> {
    const distinct = [...new Set(texts)];
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal);
      const claims: Claim[] = [];
      for (const text of distinct) if (!known.has(text)) claims.push(claim(text));
      const promises = distinct.map((text) => known.get(text) ?? Promise.resolve(undefined));
      if (claims.length > 0) await fill(claims, signal);
      const settled = await Promise.allSettled(promises);
      const failure = settled.find((result) => result.status === 'rejected');
      if (!failure) {
        const units = new Map<string, Unit>();
        settled.forEach((result, index) =>
          units.set(distinct[index] ?? '', result.status === 'fulfilled' ? result.value : undefined),
        );
        return units;
      }
      // Another call's batch was aborted by its own signal: embed those texts again, once, under ours.
      if (attempt > 0 || !isAbortError(failure.reason)) throw failure.reason;
    }
  }

  function claim(text: string): Claim {
    let resolve!: (unit: Unit) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<Unit>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    });
    // The caller that claims the text reports its failure; waiting callers see it through the promise.
    promise.catch(() => undefined);
    known.set(text, promise);
    return { text, promise, settled: false, resolve, reject };
  }

  function settle(claim: Claim, unit: Unit): void {
    claim.settled = true;
    claim.resolve(unit);
  }

  return {
    name,
    kind: 'embedding',
    model: options.model,
    async matrix(rows, columns, signal) {
      const units = await unitsOf([...rows, ...columns], signal);
      // Equal texts score exactly 1 (rounding aside, their cosine is 1 anyway; this also holds for "" and
      // other texts a model gives no direction), as the Similarity contract says.
      return rows.map((row) =>
        columns.map((column) => (row === column ? 1 : unitCosine(units.get(row), units.get(column)))),
      );
    },
    async close() {
      await options.close?.();
    },
  };
}
