/**
 * The resilience wrappers, composed in the one order that makes sense:
 *
 *     withRetries( withConcurrency( withTimeout(model) ) )
 *
 * - the timeout bounds each attempt's running time, not time spent queued;
 * - a slot is held only while a call runs, never during a retry's backoff;
 * - retries see timeouts (retryable) and provider errors, never aborts.
 */
import type { ChatModel } from './chat-model.js';
import { withConcurrency, type Limiter } from './concurrency.js';
import { withRetries, type RetryOptions } from './retry.js';
import { withTimeout } from './timeout.js';

export { createLimiter, withConcurrency, type Limiter } from './concurrency.js';
export { backoffDelay, shouldRetry, withRetries, type RetryInfo, type RetryOptions } from './retry.js';
export { abortErrorOf, sleep, throwIfAborted, withTimeout } from './timeout.js';

export interface ResilienceOptions {
  /** Retry options; `false` for none. Default: `withRetries` defaults. */
  readonly retry?: RetryOptions | false;
  /** Per-attempt timeout in milliseconds; omitted or Infinity for none. */
  readonly timeoutMs?: number;
  /** A concurrency limit, or a limiter shared with other models of the same provider. */
  readonly concurrency?: number | Limiter;
}

export function withResilience(model: ChatModel, options: ResilienceOptions = {}): ChatModel {
  let wrapped = model;
  if (options.timeoutMs !== undefined) wrapped = withTimeout(wrapped, options.timeoutMs);
  if (options.concurrency !== undefined) wrapped = withConcurrency(wrapped, options.concurrency);
  if (options.retry !== false) wrapped = withRetries(wrapped, options.retry ?? {});
  return wrapped;
}
