/**
 * The one way the engines run N independent things at a time (team optimisation and evaluation, session
 * simulation, turn evaluation, the WorfBench runner, WorfEval's samples, the distillation suite).
 *
 * `boundedMap(items, { concurrency, signal }, fn)`:
 * - At most `concurrency` calls of `fn` run at once (an integer >= 1, checked by integerOption: a BAD_INPUT naming
 *   the field, `concurrency` unless `field` says otherwise).
 * - Items are pulled from the iterable only as slots free up, so a lazy iterable of 100,000 items never holds
 *   100,000 pending closures.
 * - Results come back in the items' order, whatever order the calls finish in.
 * - An error `fn` throws is fatal: the signal `fn` was given aborts (with that error as its reason), items not yet
 *   started are never started, and once every call still running has settled the error is thrown. Errors that
 *   calls throw after that (usually their aborts) are consequences, not causes, and are dropped. A per-item failure
 *   that must not stop the others is `fn`'s to catch and return as a value (each engine decides what is fatal).
 * - The caller's `signal` cancels the same way; the map then throws the abort error (abortErrorOf), so a caller that
 *   reports partial work keeps its finished items as they finish and catches the abort.
 * - Nothing is left running when it returns or throws, and no promise it makes is left to reject unhandled. A call
 *   must end once its signal aborts (every engine's calls do): the map waits for it.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import { abortErrorOf } from '../llm/timeout.js';
import { integerOption } from '../integer-option.js';

export interface BoundedMapOptions {
  /** Calls of `fn` at once: an integer >= 1. */
  readonly concurrency: number;
  /** Cancels the map: running calls see their signal abort, the rest never start. */
  readonly signal?: AbortSignal;
  /** The option's name in the error for a bad `concurrency` (default `concurrency`). */
  readonly field?: string;
}

export async function boundedMap<Item, Result>(
  items: Iterable<Item>,
  options: BoundedMapOptions,
  fn: (item: Item, signal: AbortSignal, index: number) => Promise<Result>,
): Promise<Result[]> {
  const concurrency = integerOption(options.concurrency, options.field ?? 'concurrency', { min: 1 });
  const caller = options.signal;
  const stop = new AbortController();
  // Every call in flight listens on this one signal (and often passes it on): many listeners are expected.
  // Infinity, not 0: Node 20's getMaxListeners throws on an AbortSignal set to 0, and the tool loop reads it.
  setMaxListeners(Number.POSITIVE_INFINITY, stop.signal);
  let fatal: { error: unknown } | undefined;
  const queue = new PQueue({ concurrency });
  const onCallerAbort = (): void => stop.abort(caller?.reason);
  // Items waiting in the queue are dropped at the first stop; the loop below adds no more.
  const onStop = (): void => queue.clear();
  stop.signal.addEventListener('abort', onStop, { once: true });
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  const results: Result[] = [];
  try {
    let index = 0;
    try {
      for (const item of items) {
        // Waits while `concurrency` items are already queued behind the running ones.
        await queue.onSizeLessThan(concurrency);
        if (stop.signal.aborted) break;
        const position = index++;
        // The task catches everything, so the promise add returns never rejects; a cleared task's never settles.
        void queue.add(async () => {
          if (stop.signal.aborted) return;
          try {
            results[position] = await fn(item, stop.signal, position);
          } catch (error) {
            if (stop.signal.aborted) return;
            fatal = { error };
            stop.abort(error);
          }
        });
      }
    } catch (error) {
      // The iterable itself failed (a lazy source): fatal like an item's error, after the running calls settle.
      if (!stop.signal.aborted) {
        fatal = { error };
        stop.abort(error);
      }
    }
    await queue.onIdle();
  } finally {
    caller?.removeEventListener('abort', onCallerAbort);
    stop.signal.removeEventListener('abort', onStop);
  }
  if (fatal) throw fatal.error;
  if (stop.signal.aborted && caller) throw abortErrorOf(caller);
  return results;
}
