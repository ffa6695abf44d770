/**
 * Bounded concurrency for model calls. One limiter can be shared by every model of a provider, so
 * "at most 8 OpenAI calls at once" holds across planner, agents and verifier.
 */
import PQueue from 'p-queue';
import { isAbortError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { ChatModel } from './chat-model.js';
import { wrapModel } from './wrap-model.js';
import { abortErrorOf } from './timeout.js';

export interface Limiter {
  readonly concurrency: number;
  /** Calls running now. */
  readonly running: number;
  /** Calls waiting for a slot. */
  readonly waiting: number;
  /** Runs `task` when a slot is free. A queued task whose signal aborts leaves the queue and rejects. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** A limiter allowing `concurrency` tasks at once (an integer >= 1, or Infinity). */
export function createLimiter(concurrency: number): Limiter {
  if (concurrency !== Number.POSITIVE_INFINITY) integerOption(concurrency, 'concurrency', { min: 1 });
  const queue = new PQueue({ concurrency });
  return {
    concurrency,
    get running() {
      return queue.pending;
    },
    get waiting() {
      return queue.size;
    },
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) throw abortErrorOf(signal);
      try {
        return await queue.add(task, { signal });
      } catch (error) {
        if (signal?.aborted && !isAbortError(error)) throw abortErrorOf(signal);
        throw error;
      }
    },
  };
}

/** At most `limit` calls of this model at once; pass a `Limiter` to share one between models. */
export function withConcurrency(model: ChatModel, limit: number | Limiter): ChatModel {
  const limiter = typeof limit === 'number' ? createLimiter(limit) : limit;
  return wrapModel(model, {
    wrapGenerate({ call, signal, next }) {
      return limiter.run(() => next(call, signal), signal);
    },
  });
}
