/**
 * Retries with exponential backoff and jitter. Only errors that say a retry can help (`WeftError` with
 * `retryable: true`: rate limits, 5xx, timeouts, simulated provider errors) are retried; aborts never are.
 * Each retry carries its number in `call.tag.retry` (seeded models draw it anew). Giving up throws an error
 * that says so (`provider error after 3 retries: …`, the last error as its cause): that is what a failed
 * subtask records as its reason.
 */
import { WeftError, isAbortError, isWeftError, rewordError, type WeftErrorCode } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { ChatCall, ChatModel } from './chat-model.js';
import { abortErrorOf, sleep as abortableSleep } from './timeout.js';
import { wrapModel } from './wrap-model.js';

export interface RetryInfo {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  /** How long the wrapper waits before the next attempt. */
  readonly delayMs: number;
  readonly error: WeftError;
}

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  readonly retries?: number;
  /** The first backoff, doubled per retry (default 500). */
  readonly baseDelayMs?: number;
  /** Backoff cap (default 20,000). A server's `retryAfterMs` is honoured even above it. */
  readonly maxDelayMs?: number;
  /** Injected for tests: an abortable wait. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests: uniform in [0, 1) for the jitter. */
  readonly random?: () => number;
  /** Told before each wait (for events and budget accounting). */
  readonly onRetry?: (info: RetryInfo) => void;
}

export const DEFAULT_RETRIES = 3;
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 20_000;

/**
 * The wait before retry number `retry` (from 1): "equal jitter" — half the exponential step fixed, half
 * random — so concurrent callers spread out but never retry instantly. `retryAfterMs`, when the server sent
 * one, replaces the computed backoff.
 */
export function backoffDelay(
  retry: number,
  options: { baseDelayMs: number; maxDelayMs: number; retryAfterMs?: number | undefined; random: () => number },
): number {
  if (options.retryAfterMs !== undefined && options.retryAfterMs >= 0) return options.retryAfterMs;
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.round(step / 2 + (step / 2) * options.random());
}

/** True when retrying can help and the caller has not aborted. */
export function shouldRetry(error: unknown, signal?: AbortSignal): error is WeftError {
  if (signal?.aborted || isAbortError(error)) return false;
  return isWeftError(error) && error.retryable;
}

export function withRetries(model: ChatModel, options: RetryOptions = {}): ChatModel {
  const retries = options.retries ?? DEFAULT_RETRIES;
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  integerOption(retries, 'retries', { min: 0 });
  checkNonNegative('baseDelayMs', baseDelayMs);
  checkNonNegative('maxDelayMs', maxDelayMs);
  const wait = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  return wrapModel(model, {
    async wrapGenerate({ call, signal, next }) {
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw abortErrorOf(signal);
        // Counts what this try showed, so a retry can say that text is thrown away instead of repeating it.
        let shown = 0;
        const onStream = call.onStream;
        const tried = attempt === 1 ? call : retryOf(call, attempt - 1);
        const counted: ChatCall = onStream
          ? {
              ...tried,
              onStream: (event) => {
                shown = event.kind === 'delta' ? shown + event.text.length : 0;
                onStream(event);
              },
            }
          : tried;
        try {
          return await next(counted, signal);
        } catch (error) {
          if (shown > 0 && onStream && shouldRetry(error, signal) && attempt <= retries) {
            onStream({ kind: 'discard', chars: shown });
          }
          if (signal?.aborted) throw isAbortError(error) ? error : abortErrorOf(signal);
          if (!shouldRetry(error, signal)) throw error;
          if (attempt > retries) throw retries === 0 ? error : gaveUp(error, retries);
          const delayMs = backoffDelay(attempt, { baseDelayMs, maxDelayMs, retryAfterMs: error.retryAfterMs, random });
          options.onRetry?.({ attempt, delayMs, error });
          await wait(delayMs, signal);
        }
      }
    },
  });
}

function retryOf(call: ChatCall, retry: number): ChatCall {
  return { ...call, tag: { ...(call.tag ?? { purpose: 'other' }), retry } };
}

const GAVE_UP_LABELS: Partial<Record<WeftErrorCode, string>> = { PROVIDER: 'provider error', TIMEOUT: 'timeout' };

/** `provider error after 3 retries: OpenAI answered HTTP 503`: why the call failed, and that retrying did not help. */
function gaveUp(error: WeftError, retries: number): WeftError {
  const label = GAVE_UP_LABELS[error.code] ?? `${error.code.toLowerCase()} error`;
  return rewordError(
    error,
    `${label} after ${retries} ${retries === 1 ? 'retry' : 'retries'}: ${error.message}`,
    error,
  );
}

function checkNonNegative(field: string, value: number): void {
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    throw new WeftError('BAD_INPUT', `Expected ${field} to be a number >= 0, got ${String(value)} (${typeof value})`, {
      location: { field },
    });
  }
}
