/**
 * One tool call as agents and procedures make it: arguments validated, a timeout, the tool's concurrency cap,
 * retries for idempotent tools only, and a size cap on the result. A failing tool is an outcome (`ok: false`) the
 * agent sees and can recover from, not an exception; only the caller's own abort throws.
 */
import { WeftError, isWeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { type Limiter, createLimiter } from '../llm/concurrency.js';
import { sleep } from '../llm/timeout.js';
import type { JsonValue, Tool } from './tool.js';
import { scrubSecrets } from '../text/redact-url.js';
import { REDACTED, secretArgValues } from './redact-tool-args.js';
import { checkToolArgs } from './validate-args.js';

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_RETRIES = 2;
export const DEFAULT_MAX_RESULT_BYTES = 20_000;
export const DEFAULT_TOOL_RETRY_DELAY_MS = 200;

export interface CallToolOptions {
  /** The caller's signal (a cancelled run): aborting it throws ABORTED. */
  readonly signal?: AbortSignal;
  /** Per attempt; default the tool's `timeoutMs`, else 30 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, for idempotent tools and retryable failures only (default 2). */
  readonly retries?: number;
  /** The first wait before a retry, doubled per retry (default 200 ms). */
  readonly retryDelayMs?: number;
  /** Results whose JSON is larger are cut to this many bytes, with a note (default the tool's, else 20,000). */
  readonly maxResultBytes?: number;
  /** The run or chat session the call is made for, passed to the tool (`ToolCallContext.scope`). */
  readonly scope?: string;
}

export type ToolCallOutcome =
  | {
      readonly ok: true;
      readonly result: JsonValue;
      /** The result was cut to `maxResultBytes`: it is then a string ending in `[truncated: N of M bytes]`. */
      readonly truncated?: true;
      readonly durationMs: number;
      readonly attempts: number;
    }
  | { readonly ok: false; readonly error: WeftError; readonly durationMs: number; readonly attempts: number };

// One limiter per Tool object, so that the cap holds across every agent calling it.
const limiters = new WeakMap<Tool, Limiter>();

function limiterOf(tool: Tool): Limiter | undefined {
  if (tool.concurrency === undefined || tool.concurrency === Number.POSITIVE_INFINITY) return undefined;
  let limiter = limiters.get(tool);
  if (!limiter) {
    limiter = createLimiter(tool.concurrency);
    limiters.set(tool, limiter);
  }
  return limiter;
}

export async function callTool(tool: Tool, args: JsonValue, options: CallToolOptions = {}): Promise<ToolCallOutcome> {
  const { signal } = options;
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const retries = tool.idempotent ? (options.retries ?? DEFAULT_TOOL_RETRIES) : 0;
  const retryDelayMs = options.retryDelayMs ?? DEFAULT_TOOL_RETRY_DELAY_MS;
  const maxResultBytes = options.maxResultBytes ?? tool.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  checkPositive('timeoutMs', timeoutMs, true);
  checkPositive('maxResultBytes', maxResultBytes, false);
  integerOption(retries, 'retries', { min: 0 });
  const elapsed = (): number => performance.now() - started;
  if (signal?.aborted) throw abortedError(signal);

  // A server's "bad token …" or a validator quoting a value must not carry a secret argument into the log and traces.
  const secrets = secretArgValues(tool, args);
  try {
    const compiling = checkToolArgs(tool, args);
    if (compiling) await compiling;
  } catch (error) {
    if (isWeftError(error) && error.code === 'TOOL')
      return { ok: false, error: withoutSecrets(error, secrets), durationMs: elapsed(), attempts: 0 };
    throw error;
  }

  const limiter = limiterOf(tool);
  let attempts = 0;
  for (;;) {
    attempts += 1;
    let raw: unknown;
    try {
      const attempt = (): Promise<unknown> => attemptCall(tool, args, timeoutMs, signal, options.scope);
      raw = await (limiter ? limiter.run(attempt, signal) : attempt());
    } catch (caught) {
      if (signal?.aborted) throw abortedError(signal);
      const error = withoutSecrets(toolError(tool.name, caught), secrets);
      if (attempts <= retries && error.retryable) {
        try {
          await sleep(retryDelayMs * 2 ** (attempts - 1), signal);
        } catch {
          throw abortedError(signal!);
        }
        continue;
      }
      return { ok: false, error, durationMs: elapsed(), attempts };
    }
    const shaped = shapeResult(tool.name, raw, maxResultBytes);
    if (shaped instanceof WeftError) return { ok: false, error: shaped, durationMs: elapsed(), attempts };
    return { ok: true, ...shaped, durationMs: elapsed(), attempts };
  }
}

/**
 * One attempt under its timeout: the tool gets a signal that aborts on the caller's abort or at the deadline, and
 * a tool that ignores it still settles at the deadline.
 */
function attemptCall(
  tool: Tool,
  args: JsonValue,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  scope: string | undefined,
): Promise<unknown> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  return new Promise((resolve, reject) => new Attempt(tool, timeoutMs, signal, resolve, reject).start(args, scope));
}

const ONCE = { once: true } as const;
const timeUp = (attempt: Attempt): void => attempt.timeUp();

/**
 * An attempt's state in one object (the caller's abort listener too), its tool's signal made when the tool first
 * reads it: this runs for every tool call, and an AbortController, or a closure and a promise per deadline, cost
 * more than a fast tool's whole call.
 */
class Attempt {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #settled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Made when needed: an error captures a stack. */
  #timeoutError: WeftError | undefined;

  constructor(
    private readonly tool: Tool,
    private readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  start(args: JsonValue, scope: string | undefined): void {
    if (this.timeoutMs !== Number.POSITIVE_INFINITY) this.#timer = setTimeout(timeUp, this.timeoutMs, this);
    this.caller?.addEventListener('abort', this, ONCE);
    const attempt = this;
    const context = {
      get signal(): AbortSignal {
        return attempt.signal();
      },
      ...(scope !== undefined ? { scope } : {}),
    };
    let pending: unknown;
    try {
      pending = this.tool.call(args, context);
    } catch (error) {
      this.#finish(false, error);
      return;
    }
    Promise.resolve(pending).then(
      (value) => this.#finish(true, value),
      (error: unknown) => this.#finish(false, error),
    );
  }

  /** The tool's signal; one made after an abort is made aborted, with the reason. */
  signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  timeUp(): void {
    this.#abort(this.#timedOut());
    this.#finish(false, this.#timedOut());
  }

  /** The caller's abort (this object is its listener). */
  handleEvent(): void {
    const caller = this.caller as AbortSignal;
    this.#abort(caller.reason);
    this.#finish(false, abortedError(caller));
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  #timedOut(): WeftError {
    this.#timeoutError ??= new WeftError('TIMEOUT', `${this.tool.name}: no result after ${this.timeoutMs} ms`, {
      retryable: true,
    });
    return this.#timeoutError;
  }

  #finish(ok: boolean, value: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.caller?.removeEventListener('abort', this);
    if (ok) this.resolve(value);
    // A tool that rethrows its signal's abort after the deadline timed out; it did not fail on its own.
    else this.reject(this.#aborted && !this.caller?.aborted ? this.#timedOut() : value);
  }
}

/** The error with each secret value replaced by `[redacted]`, as the log shows the arguments; no cause (it quotes them). */
function withoutSecrets(error: WeftError, secrets: readonly string[]): WeftError {
  if (secrets.length === 0) return error;
  const message = scrubSecrets(error.message, secrets, REDACTED);
  if (message === error.message) return error;
  return new WeftError(error.code, message, {
    retryable: error.retryable,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  });
}

/**
 * What the agent sees of a failure: a WeftError (TOOL unless it is a TIMEOUT), its message opening with the tool's
 * name. Retryable when the tool says so (`retryable: true` on what it threw) or it timed out.
 */
function toolError(toolName: string, caught: unknown): WeftError {
  const message = thrownMessage(caught);
  const named = message.startsWith(`${toolName}:`) ? message : `${toolName}: ${message}`;
  if (isWeftError(caught)) {
    if (caught.code === 'TOOL' || caught.code === 'TIMEOUT') {
      return named === caught.message
        ? caught
        : new WeftError(caught.code, named, { cause: caught, retryable: caught.retryable });
    }
    return new WeftError('TOOL', named, { cause: caught, retryable: caught.retryable });
  }
  const retryable =
    typeof caught === 'object' && caught !== null && (caught as { retryable?: unknown }).retryable === true;
  return new WeftError('TOOL', named, { cause: caught, retryable });
}

/** Longest error message kept from a tool: it goes to the model, the log and the terminal. */
const MAX_ERROR_CHARS = 2_000;

/**
 * What a tool threw, as one message of bounded length. Tools throw anything: `{ code: 42 }` (which String() makes
 * "[object Object]"), a null-prototype object (which String() cannot convert: it throws), 50 MB of text.
 */
export function thrownMessage(caught: unknown): string {
  let message: string;
  if (caught instanceof Error) message = String(caught.message);
  else if (typeof caught === 'string') message = caught;
  else if (
    typeof caught === 'object' &&
    caught !== null &&
    typeof (caught as { message?: unknown }).message === 'string'
  )
    message = (caught as { message: string }).message;
  else {
    try {
      message =
        typeof caught === 'object' && caught !== null ? `threw ${JSON.stringify(caught)}` : `threw ${String(caught)}`;
    } catch {
      message = `threw ${Object.prototype.toString.call(caught)}`;
    }
  }
  return message.length <= MAX_ERROR_CHARS
    ? message
    : `${message.slice(0, MAX_ERROR_CHARS)}… [cut: ${message.length.toLocaleString('en-US')} characters]`;
}

/**
 * The result as JSON (what the log records and a resume replays: a Date becomes its string, `undefined` null) and
 * cut to `maxBytes` of its JSON text when larger.
 */
function shapeResult(
  toolName: string,
  raw: unknown,
  maxBytes: number,
): { result: JsonValue; truncated?: true } | WeftError {
  // Most tools answer a number, a short string or a flag: their JSON round trip is known without making it.
  if (typeof raw === 'number') {
    const size = JSON.stringify(raw).length;
    // NaN and the infinities are null in JSON, and -0 is 0.
    if (size <= maxBytes) return { result: Number.isFinite(raw) ? raw + 0 : null };
  } else if (typeof raw === 'string') {
    // At most 6 bytes of JSON per UTF-16 unit (a `\u` escape; other characters take at most 3 bytes of UTF-8).
    if (raw.length * 6 + 2 <= maxBytes) return { result: raw };
  } else if (typeof raw === 'boolean' || raw === null) {
    if (5 <= maxBytes) return { result: raw };
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(raw);
  } catch (error) {
    return new WeftError('TOOL', `${toolName}: its result is not JSON (${(error as Error).message})`, { cause: error });
  }
  if (text === undefined) return { result: null };
  const size = Buffer.byteLength(text);
  if (size <= maxBytes) return { result: JSON.parse(text) as JsonValue };
  // Cut on a character boundary: a split UTF-8 sequence decodes to U+FFFD, which is dropped.
  const head = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return { result: `${head}\n[truncated: ${Buffer.byteLength(head)} of ${size} bytes]`, truncated: true };
}

/**
 * The caller's abort, always as WeftError('ABORTED') (a bare `abort()` gives a DOMException reason); `message`
 * says what was aborted when the reason does not.
 */
export function abortedError(signal: AbortSignal, message = 'The tool call was aborted'): WeftError {
  const reason: unknown = signal.reason;
  if (isWeftError(reason) && reason.code === 'ABORTED') return reason;
  return new WeftError('ABORTED', message, { cause: reason });
}

function checkPositive(field: string, value: number, infinityAllowed: boolean): void {
  const ok =
    (infinityAllowed && value === Number.POSITIVE_INFINITY) ||
    (typeof value === 'number' && Number.isFinite(value) && value > 0);
  if (!ok) {
    throw new WeftError('BAD_INPUT', `Expected ${field} > 0, got ${String(value)} (${typeof value})`, {
      location: { field },
    });
  }
}
