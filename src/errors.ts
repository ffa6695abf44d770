/**
 * The one error type of Weft. Callers branch on `code`, never on message text.
 * Imports nothing, so every layer can use it.
 */
export type WeftErrorCode =
  /** A user-supplied value (flag, file, task) is invalid. CLI exit code 2. */
  | 'BAD_INPUT'
  /** A workflow/plan failed validation (cycle, unknown dependency, …). CLI exit code 2. */
  | 'PLAN_INVALID'
  /** A model spec string cannot be parsed or names an unknown provider. CLI exit code 2. */
  | 'MODEL_SPEC'
  /** A provider is not configured (missing API key, no model found). CLI exit code 2. */
  | 'MODEL_CONFIG'
  /** An optional dependency (node-llama-cpp, pg, …) is not installed. CLI exit code 2. */
  | 'MISSING_DEPENDENCY'
  /** The provider answered with an error. `retryable` tells whether trying again can help. */
  | 'PROVIDER'
  /** A call exceeded its per-call timeout. Retryable. */
  | 'TIMEOUT'
  /** The caller aborted. Never retried. */
  | 'ABORTED'
  /** Structured output could not be parsed/validated after the allowed re-prompts. */
  | 'PARSE'
  /** A scripted model has no reply left for a call. */
  | 'SCRIPT_EXHAUSTED'
  /** A budget (calls, tokens, cost, wall time) would be exceeded. */
  | 'BUDGET'
  /** The run store failed or holds data it cannot read. */
  | 'STORE'
  /** An agent tried to write an artifact outside the run's artifact directory. */
  | 'ARTIFACT_PATH'
  /** A tool call failed: bad arguments, the tool threw, timed out or answered an HTTP error. The agent sees it. */
  | 'TOOL'
  /** A run id or other named thing does not exist. CLI exit code 2. */
  | 'NOT_FOUND'
  /** An executable workflow failed while running (a JSONata error, the visit cap); located by node id and field. */
  | 'WORKFLOW'
  /** A bug in Weft. */
  | 'INTERNAL';

/** Where in a user's input a problem is. Rendered by `formatLocation`. */
export interface SourceLocation {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** A dotted path to the offending field, e.g. `subtasks[2].dependsOn[0]`. */
  readonly field?: string;
}

export interface WeftErrorOptions extends ErrorOptions {
  readonly retryable?: boolean;
  readonly location?: SourceLocation;
  /** Server-requested delay before a retry (Retry-After), in milliseconds. */
  readonly retryAfterMs?: number;
  /** Further located problems, when one error stands for several (e.g. plan validation). */
  readonly issues?: readonly LocatedIssue[];
  /** What a streamed reply delivered before it was cut. */
  readonly partialText?: string;
}

export interface LocatedIssue extends SourceLocation {
  readonly message: string;
}

export class WeftError extends Error {
  override readonly name = 'WeftError';
  readonly retryable: boolean;
  readonly location: SourceLocation | undefined;
  readonly retryAfterMs: number | undefined;
  readonly issues: readonly LocatedIssue[];
  /** The text a streamed reply had delivered before it was cut (abort, network drop, timeout). */
  readonly partialText: string | undefined;

  constructor(
    readonly code: WeftErrorCode,
    message: string,
    options: WeftErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable ?? code === 'TIMEOUT';
    this.location = options.location;
    this.retryAfterMs = options.retryAfterMs;
    this.issues = clipFileQuotes(options.issues ?? [], options.location?.file !== undefined);
    this.partialText = options.partialText;
  }
}

const USER_ERROR_CODES: ReadonlySet<WeftErrorCode> = new Set<WeftErrorCode>([
  'BAD_INPUT',
  'PLAN_INVALID',
  'MODEL_SPEC',
  'MODEL_CONFIG',
  'MISSING_DEPENDENCY',
  'NOT_FOUND',
]);

export function isWeftError(error: unknown): error is WeftError {
  return error instanceof WeftError;
}

/** True when the error is the user's to fix (CLI exit code 2). */
export function isUserError(error: unknown): boolean {
  return isWeftError(error) && USER_ERROR_CODES.has(error.code);
}

/** True for aborts, whatever produced them (AbortSignal reasons, SDK abort errors, WeftError ABORTED). */
export function isAbortError(error: unknown): boolean {
  if (isWeftError(error)) return error.code === 'ABORTED';
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}

/** `file:line:column field` — the prefix of every located message. */
export function formatLocation(location: SourceLocation | undefined): string {
  if (!location) return '';
  let text = location.file ?? '';
  if (location.line !== undefined) text += `${text ? ':' : 'line '}${location.line}`;
  if (location.column !== undefined && location.line !== undefined) text += `:${location.column}`;
  if (location.field) text += `${text ? ' ' : ''}${location.field}`;
  return text;
}

/**
 * The same error under another message: code, retryability, Retry-After, location and issues kept. `cause` is
 * what the new error keeps as its cause (usually `error` itself; not when its message must not survive).
 */
export function rewordError(error: WeftError, message: string, cause?: unknown): WeftError {
  return new WeftError(error.code, message, {
    cause,
    retryable: error.retryable,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
    ...(error.location !== undefined ? { location: error.location } : {}),
    ...(error.issues.length > 0 ? { issues: error.issues } : {}),
    ...(error.partialText !== undefined ? { partialText: error.partialText } : {}),
  });
}

/**
 * The most characters of a file's own text that one error repeats. Issues quote what they found (an unknown field's
 * name, a value), and a file that is no Weft file at all (a password file, a key, a .env handed to `weft_exec` by an
 * MCP client) would otherwise come back whole, one quoted key per line.
 */
export const MAX_QUOTED_CHARS = 40;

/**
 * A quote this short is shown whole and not counted: field names, ids, tool names, kinds and hints, what issues about
 * a real Weft file quote. A line of a password file or a key is longer.
 */
const FREE_QUOTE_CHARS = 24;

/**
 * Issues about a file with their double-quoted parts clipped so that all of them together show at most
 * MAX_QUOTED_CHARS characters (short ones aside, FREE_QUOTE_CHARS); once spent, a quote shows as "…". A text quoted
 * twice (a key in the message and in the field, where a plain name goes unquoted) is shown the same way and counted
 * once. Issues with no file (a flag, a tool's arguments) are kept.
 */
function clipFileQuotes(issues: readonly LocatedIssue[], aboutFile: boolean): readonly LocatedIssue[] {
  let left = MAX_QUOTED_CHARS;
  const shown = new Map<string, string>();
  const clipped = (text: string): string =>
    text
      .replace(/"([^"\n]*)"/g, (_quote, inner: string) => {
        if (inner.length <= FREE_QUOTE_CHARS) return `"${inner}"`;
        let out = shown.get(inner);
        if (out === undefined) {
          out = inner.length <= left ? inner : `${inner.slice(0, left)}…`;
          left = Math.max(0, left - inner.length);
          shown.set(inner, out);
        }
        return `"${out}"`;
      })
      // A list of keys past the budget reads as one mark and a count, not a row of them.
      .replace(/"…"(?:, "…")+/g, (run) => `"…" and ${run.split(', ').length - 1} more`);
  const clippedField = (field: string): string =>
    clipped(field).replace(/[^.[\]"]+/g, (part) => shown.get(part) ?? part);
  return issues.map((issue) => {
    if (issue.file === undefined && !aboutFile) return issue;
    const message = clipped(issue.message);
    return { ...issue, message, ...(issue.field !== undefined ? { field: clippedField(issue.field) } : {}) };
  });
}

/** Reports list this many issues and then say how many more there are: a hostile file can hold 100,000. */
export const MAX_REPORTED_ISSUES = 50;

/** One human-readable message for an error, with its location and issues. */
export function formatError(error: unknown): string {
  if (!isWeftError(error)) return error instanceof Error ? error.message : String(error);
  const where = formatLocation(error.location);
  // A message that already opens with its place ("--k expects …") is not prefixed twice.
  const head = where && !error.message.startsWith(`${where} `) ? `${where}: ${error.message}` : error.message;
  if (error.issues.length === 0) return head;
  const lines = error.issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const at = formatLocation(issue);
    return `  - ${at ? `${at}: ` : ''}${issue.message}`;
  });
  const omitted = error.issues.length - lines.length;
  return [head, ...lines, ...(omitted > 0 ? [`  … and ${omitted} more`] : [])].join('\n');
}
