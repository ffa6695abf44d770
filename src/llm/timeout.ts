/**
 * Timers that respect aborts, and the per-call timeout wrapper. A timeout is a retryable
 * `WeftError('TIMEOUT')`; the caller's own abort stays an abort (and is never retried).
 */
import { WeftError, isAbortError } from '../errors.js';
import type { ChatCall, ChatModel } from './chat-model.js';
import { cutStreamError } from './cut-stream-error.js';
import { wrapModel } from './wrap-model.js';

/** The error to throw for an aborted signal: its reason when that is an abort error, else `ABORTED`. */
export function abortErrorOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (isAbortError(reason)) return reason as Error;
  return new WeftError('ABORTED', 'The operation was aborted', { cause: reason });
}

/** A signal that aborts when any of the given ones does; undefined when none is given, the one itself when one is. */
export function anySignal(...signals: [...(AbortSignal | undefined)[], AbortSignal]): AbortSignal;
export function anySignal(...signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined;
export function anySignal(...signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  return given.length > 1 ? AbortSignal.any(given) : given[0];
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortErrorOf(signal);
}

/**
 * Waits `ms` milliseconds, rejecting early when `signal` aborts. `ms <= 0` resolves on a microtask without
 * touching the timer queue, so simulated zero-latency runs stay fast.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortErrorOf(signal));
  if (!(ms > 0)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortErrorOf(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Bounds every call to `ms` milliseconds. The wrapped model gets a signal that aborts on the caller's abort
 * or on the timeout; if it ignores that signal the call still settles at the deadline. `Infinity` returns
 * the model unchanged.
 */
export function withTimeout(model: ChatModel, ms: number): ChatModel {
  if (ms === Number.POSITIVE_INFINITY) return model;
  if (!(typeof ms === 'number' && Number.isFinite(ms) && ms > 0)) {
    throw new WeftError('BAD_INPUT', `Expected a timeout > 0 milliseconds, got ${String(ms)} (${typeof ms})`, {
      location: { field: 'timeoutMs' },
    });
  }
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      throwIfAborted(signal);
      const controller = new AbortController();
      const timeoutError = new WeftError('TIMEOUT', `The model call took longer than ${ms} ms`, { retryable: true });
      let timedOut = false;
      let rejectEarly: (error: unknown) => void = () => {};
      const early = new Promise<never>((_, reject) => {
        rejectEarly = reject;
      });
      const onCallerAbort = (): void => {
        controller.abort(signal!.reason);
        rejectEarly(abortErrorOf(signal!));
      };
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(timeoutError);
        rejectEarly(timeoutError);
      }, ms);
      signal?.addEventListener('abort', onCallerAbort, { once: true });
      // What a stream delivered before the deadline or an abort is kept on the error (the race drops the inner one).
      let streamed = '';
      const onStream = call.onStream;
      const watched: ChatCall = onStream
        ? {
            ...call,
            onStream: (event) => {
              streamed = event.kind === 'delta' ? streamed + event.text : '';
              onStream(event);
            },
          }
        : call;
      try {
        return await Promise.race([next(watched, controller.signal), early]);
      } catch (error) {
        if (signal?.aborted) throw cutStreamError(abortErrorOf(signal), streamed);
        if (timedOut) throw cutStreamError(timeoutError, streamed);
        throw error;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onCallerAbort);
      }
    },
  });
}
