/**
 * Maps what an SDK threw to a WeftError. Each provider classifies its SDK's own error classes into a
 * `ProviderFailure` (by class, never by message text; the OpenAI and Anthropic SDKs share `classifySdkError`);
 * the policy — what is retryable, how long to wait — lives here, once.
 */
import { rewordError, WeftError } from '../../errors.js';
import { redactUrl, scrubSecrets } from '../../text/redact-url.js';

export type ProviderFailure =
  | {
      readonly kind: 'http';
      readonly status: number;
      readonly headers?: Headers;
      readonly detail?: string;
      /** Overrides the status-based decision, for errors the body marks as permanent (e.g. a spend limit). */
      readonly retryable?: boolean;
    }
  | { readonly kind: 'connection'; readonly detail?: string }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'abort' }
  | { readonly kind: 'other'; readonly detail?: string };

export interface ProviderContext {
  /** Human name for messages, e.g. `OpenAI`, `Ollama`, `Anthropic`. */
  readonly provider: string;
  readonly model: string;
  /** Where requests go; named in connection errors. */
  readonly baseURL?: string;
  /** The env var holding the key; named in 401/403 messages. */
  readonly apiKeyEnv?: string;
}

/** 408 Request Timeout, 409 Conflict, 429 Too Many Requests and every 5xx (incl. Anthropic's 529) can pass. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The server-requested delay in milliseconds: `retry-after-ms` (OpenAI, Anthropic), else `retry-after` as
 * seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null || retryAfter.trim() === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

type ErrorClass<T extends Error = Error> = abstract new (...args: never[]) => T;

/** What an SDK's HTTP error class must carry for `classifySdkError`. */
export interface SdkApiError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
}

/**
 * The error classes of a Stainless-generated SDK (`openai`, `@anthropic-ai/sdk`): same names and hierarchy,
 * different classes per package.
 */
export interface SdkErrorClasses<ApiError extends SdkApiError> {
  readonly APIUserAbortError: ErrorClass;
  readonly APIConnectionTimeoutError: ErrorClass;
  readonly APIConnectionError: ErrorClass;
  readonly APIError: ErrorClass<ApiError>;
}

/**
 * Classifies what a Stainless-generated SDK threw, by class. The provider only says how to read its HTTP errors:
 * the text for the message, and optionally a retry verdict of its own.
 */
export function classifySdkError<ApiError extends SdkApiError>(
  error: unknown,
  sdk: SdkErrorClasses<ApiError>,
  httpDetail: (error: ApiError) => { readonly detail: string; readonly retryable?: boolean },
): ProviderFailure {
  // Order matters: the abort and connection classes extend APIError without a status.
  if (error instanceof sdk.APIUserAbortError) return { kind: 'abort' };
  if (error instanceof sdk.APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof sdk.APIConnectionError) {
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    return { kind: 'connection', ...(cause ? { detail: cause } : {}) };
  }
  if (error instanceof sdk.APIError && typeof error.status === 'number') {
    return {
      kind: 'http',
      status: error.status,
      ...(error.headers ? { headers: error.headers } : {}),
      ...httpDetail(error),
    };
  }
  if (error instanceof Error && error.name === 'AbortError') return { kind: 'abort' };
  return { kind: 'other' };
}

export function toWeftError(
  failure: ProviderFailure,
  error: unknown,
  context: ProviderContext,
  signal?: AbortSignal,
): WeftError {
  if (error instanceof WeftError) return error;
  const who = `${context.provider} (${context.model})`;
  if (failure.kind === 'abort' || signal?.aborted) {
    return new WeftError('ABORTED', `${who}: the call was aborted`, { cause: error, retryable: false });
  }
  switch (failure.kind) {
    case 'http': {
      const { status, headers } = failure;
      // Servers may say explicitly whether a retry can help (OpenAI and Anthropic send x-should-retry).
      const shouldRetry = headers?.get('x-should-retry');
      const retryable =
        failure.retryable ??
        (shouldRetry === 'true' ? true : shouldRetry === 'false' ? false : isRetryableStatus(status));
      const detail = failure.detail ? `: ${failure.detail}` : '';
      let hint = '';
      if ((status === 401 || status === 403) && context.apiKeyEnv) hint = ` (check ${context.apiKeyEnv})`;
      if (status === 404) hint = ' (check the model name and base URL)';
      return new WeftError('PROVIDER', `${who} answered HTTP ${status}${detail}${hint}`, {
        cause: error,
        retryable,
        retryAfterMs: retryable ? retryAfterMs(headers) : undefined,
      });
    }
    case 'connection': {
      // A base URL may carry a key (`?api_key=…`, `user:key@`): the message names the server, never the key.
      const where = context.baseURL ? ` at ${redactUrl(context.baseURL).display}` : '';
      const detail = failure.detail ? `: ${failure.detail}` : '';
      return new WeftError('PROVIDER', `${who}: could not connect${where}${detail}`, {
        cause: error,
        retryable: true,
      });
    }
    case 'timeout':
      return new WeftError('TIMEOUT', `${who}: the request timed out`, { cause: error, retryable: true });
    case 'other': {
      const detail = failure.detail ?? (error instanceof Error ? error.message : String(error));
      return new WeftError('PROVIDER', `${who}: ${detail}`, { cause: error, retryable: false });
    }
  }
}

/** Throws WeftError('ABORTED') when the signal is already aborted, so no request is sent. */
export function throwIfAborted(signal: AbortSignal | undefined, context: ProviderContext): void {
  if (signal?.aborted) {
    throw new WeftError('ABORTED', `${context.provider} (${context.model}): the call was aborted`, {
      cause: signal.reason,
      retryable: false,
    });
  }
}

/** The same error with `secrets` (e.g. a base URL's password) taken out of its message. */
export function withoutSecrets(error: WeftError, secrets: readonly string[]): WeftError {
  if (secrets.length === 0) return error;
  const message = scrubSecrets(error.message, secrets);
  if (message === error.message) return error;
  // The original's message holds the secret: keep its cause, not the error itself.
  return rewordError(error, message, error.cause);
}
