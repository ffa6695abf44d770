/**
 * HTTP tools: a tools file's `kind: http` entry, after parsing (parse-tools-section.ts), as a Tool.
 * Arguments fill the URL template percent-encoded (an argument never changes the host or adds a path segment), the
 * query and a JSON body; the response is bounded while it is read; a non-2xx answer is a TOOL error the agent sees
 * (`HTTP 404: <short body>`, retryable for 429 and 5xx); redirects are followed by hand, only to allowed hosts.
 */
import { WeftError } from '../errors.js';
import { scrubSecrets } from '../text/redact-url.js';
import { type AllowedHost, hostEntryOf, isHostAllowed } from './allow-hosts.js';
import type { JsonValue, Tool, ToolSchema } from './tool.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Bytes of a response body read at most (default); a larger one is a TOOL error. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_000_000;
/** Characters of a non-2xx body shown in the error. */
export const ERROR_BODY_CHARS = 300;
const MAX_REDIRECTS = 5;
/** Bytes of a non-2xx body read for its excerpt. */
const ERROR_BODY_READ_BYTES = 16_384;

/** One piece of a URL template: literal text (`${env:…}` already resolved) or an argument. */
export type UrlPart = { readonly text: string } | { readonly arg: string };

/** How the JSON body is made: no body, the named arguments, or every argument not used in the URL or query. */
export type HttpBody =
  | { readonly kind: 'none' }
  | { readonly kind: 'args'; readonly names: readonly string[] }
  | { readonly kind: 'rest' };

export interface HttpToolSpec {
  readonly name: string;
  readonly description: string;
  readonly method: HttpMethod;
  /** The URL as the file writes it, `${env:…}` unresolved: safe to show. */
  readonly urlTemplate: string;
  /** SECRET: the template with references resolved and credentials removed, split at its arguments. */
  readonly urlParts: readonly UrlPart[];
  /** SECRET: `user:password` from the URL, sent as Basic auth. */
  readonly basicAuth?: string;
  readonly inputSchema: ToolSchema;
  /** Query parameter → argument. */
  readonly query: Readonly<Record<string, string>>;
  readonly body: HttpBody;
  /** SECRET: header values with references resolved. */
  readonly headers: Readonly<Record<string, string>>;
  readonly idempotent: boolean;
  readonly secretArgs?: readonly string[];
  readonly timeoutMs?: number;
  readonly maxResultBytes?: number;
  readonly concurrency?: number;
  readonly maxResponseBytes: number;
  readonly allowHosts: readonly AllowedHost[];
  /** SECRET: every value an `${env:…}` reference gave, scrubbed from response text shown in errors. */
  readonly secrets: readonly string[];
  /** E.g. `http GET http://127.0.0.1:4100/orders/{order_id} (tools.yaml:12)`. */
  readonly source: string;
}

export function createHttpTool(spec: HttpToolSpec): Tool {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    idempotent: spec.idempotent,
    ...(spec.secretArgs ? { secretArgs: spec.secretArgs } : {}),
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    ...(spec.maxResultBytes !== undefined ? { maxResultBytes: spec.maxResultBytes } : {}),
    ...(spec.concurrency !== undefined ? { concurrency: spec.concurrency } : {}),
    source: spec.source,
    call: (args, { signal, scope }) => callHttp(spec, args, signal, scope),
  };
}

type Args = Readonly<Record<string, JsonValue>>;

/**
 * The header that names the run or chat session a call is made for, so that a service may keep each run's state
 * apart (the example business API does). A file's own header of that name wins.
 */
const SCOPE_HEADER = 'weft-scope';

async function callHttp(
  spec: HttpToolSpec,
  raw: JsonValue,
  signal: AbortSignal,
  scope: string | undefined,
): Promise<JsonValue> {
  const args: Args = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  const url = buildUrl(spec, args);
  // A Headers object, so that the file's `Accept` or `Content-Type` replaces ours whatever its case.
  const headers = new Headers({ accept: 'application/json, text/plain;q=0.9, */*;q=0.5' });
  if (scope !== undefined) headers.set(SCOPE_HEADER, scope);
  for (const [key, value] of Object.entries(spec.headers)) headers.set(key, value);
  if (spec.basicAuth !== undefined && !headers.has('authorization')) {
    headers.set('authorization', `Basic ${Buffer.from(spec.basicAuth).toString('base64')}`);
  }
  const bodyValue = bodyOf(spec, args);
  let body: string | undefined;
  if (bodyValue !== undefined) {
    body = JSON.stringify(bodyValue);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const response = await fetchFollowing(spec, url, spec.method, headers, body, signal);
  if (!response.ok) {
    // Only the start of an error's body is shown: read that much, not a 1 MB error page.
    throw statusError(spec, response, await readBounded(spec, response, signal, ERROR_BODY_READ_BYTES));
  }
  const text = await readBounded(spec, response, signal);
  return parseBody(response, text);
}

/** The URL for these arguments; a TOOL error for a value that cannot stand in the path. */
export function buildUrl(spec: Pick<HttpToolSpec, 'name' | 'urlParts' | 'query'>, args: Args): URL {
  let text = '';
  let inQuery = false;
  for (const part of spec.urlParts) {
    if ('text' in part) {
      text += part.text;
      if (/[?#]/.test(part.text)) inQuery = true;
      continue;
    }
    const value = args[part.arg];
    if (value === undefined || value === null || typeof value === 'object') {
      throw new WeftError(
        'TOOL',
        `${spec.name}: argument "${part.arg}" ${value === undefined ? 'is missing' : 'must be a string, number or boolean'}; the URL needs it`,
      );
    }
    const encoded = encodeURIComponent(String(value));
    // `.` and `..` would be read as path steps (WHATWG URLs resolve them), and an empty one drops a segment.
    if (!inQuery && (encoded === '' || encoded === '.' || encoded === '..')) {
      throw new WeftError('TOOL', `${spec.name}: argument "${part.arg}" cannot be "${encoded}" in the URL path`);
    }
    text += encoded;
  }
  const url = new URL(text);
  // The path as written must be the path sent: a URL parser that normalised it would have moved the request.
  const rawPath = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(text)?.[1] ?? '';
  if ((rawPath || '/') !== url.pathname) {
    throw new WeftError('TOOL', `${spec.name}: the arguments would change the URL path; refused`);
  }
  for (const [parameter, arg] of Object.entries(spec.query)) {
    const value = args[arg];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      url.searchParams.append(parameter, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
  return url;
}

function bodyOf(spec: HttpToolSpec, args: Args): JsonValue | undefined {
  if (spec.body.kind === 'none') return undefined;
  const names =
    spec.body.kind === 'args'
      ? spec.body.names
      : (() => {
          const used = new Set<string>(Object.values(spec.query));
          for (const part of spec.urlParts) if ('arg' in part) used.add(part.arg);
          return Object.keys(args).filter((name) => !used.has(name));
        })();
  const body: Record<string, JsonValue> = {};
  for (const name of names) if (args[name] !== undefined) body[name] = args[name]!;
  return body;
}

/** fetch with redirects followed by hand, each to an allowed host only; credentials dropped across origins. */
async function fetchFollowing(
  spec: HttpToolSpec,
  first: URL,
  firstMethod: HttpMethod,
  headers: Headers,
  firstBody: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  let url = first;
  let method: string = firstMethod;
  let body = firstBody;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, redirect: 'manual', signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      const reason = typeof cause?.code === 'string' ? cause.code : String(cause?.message ?? (error as Error).message);
      throw new WeftError('TOOL', `${spec.name}: cannot reach ${hostEntryOf(url)} (${reason})`, { retryable: true });
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || response.status === 304 || location === null) {
      return response;
    }
    await response.body?.cancel().catch(() => {});
    if (hop >= MAX_REDIRECTS) throw new WeftError('TOOL', `${spec.name}: more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new WeftError('TOOL', `${spec.name}: HTTP ${response.status} redirect to an invalid URL`);
    }
    if ((next.protocol !== 'http:' && next.protocol !== 'https:') || !isHostAllowed(next, spec.allowHosts)) {
      throw new WeftError(
        'TOOL',
        `${spec.name}: HTTP ${response.status} redirects to ${hostEntryOf(next)}, which is not on allowHosts; not followed`,
      );
    }
    if (next.origin !== url.origin) {
      headers.delete('authorization');
      headers.delete('cookie');
      // A key in any header (X-Api-Key: ${env:KEY}) is a credential too: it stays with the origin it was meant for.
      for (const [key, value] of Object.entries(spec.headers)) {
        if (spec.secrets.some((secret) => secret !== '' && value.includes(secret))) headers.delete(key);
      }
    }
    // 303, and 301/302 after a POST, become a GET without a body, as browsers do.
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers.delete('content-type');
    }
    url = next;
  }
}

/**
 * The body as text. Past `maxResponseBytes` the download is cancelled and the call fails; with `excerptBytes`, the
 * first that many bytes are returned instead (an error's excerpt).
 */
async function readBounded(
  spec: HttpToolSpec,
  response: Response,
  signal: AbortSignal,
  excerptBytes?: number,
): Promise<string> {
  const limit = excerptBytes ?? spec.maxResponseBytes;
  const declared = Number(response.headers.get('content-length'));
  if (excerptBytes === undefined && Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(spec);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        if (excerptBytes === undefined) throw tooLarge(spec);
        chunks.push(value.subarray(0, value.byteLength - (size - limit)));
        break;
      }
      chunks.push(value);
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (error instanceof WeftError) throw error;
    throw new WeftError('TOOL', `${spec.name}: the response broke off (${(error as Error).message})`, {
      retryable: true,
    });
  }
  // A character cut at the limit decodes to U+FFFD: dropped.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

function tooLarge(spec: HttpToolSpec): WeftError {
  return new WeftError(
    'TOOL',
    `${spec.name}: the response is larger than ${spec.maxResponseBytes} bytes (maxResponseBytes)`,
  );
}

function statusError(spec: HttpToolSpec, response: Response, text: string): WeftError {
  const short = scrubSecrets(text.replace(/\s+/g, ' ').trim(), spec.secrets);
  const excerpt = short.length > ERROR_BODY_CHARS ? `${short.slice(0, ERROR_BODY_CHARS)}…` : short;
  const retryable = response.status === 429 || response.status >= 500;
  const retryAfterMs = retryAfter(response.headers.get('retry-after'));
  return new WeftError('TOOL', `${spec.name}: HTTP ${response.status}${excerpt ? `: ${excerpt}` : ''}`, {
    retryable,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** JSON when the server says so (and it parses); any other text as a string; no body as null. */
function parseBody(response: Response, text: string): JsonValue {
  if (text === '') return null;
  const type = response.headers.get('content-type') ?? '';
  if (/[/+]json\b/i.test(type)) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      return text;
    }
  }
  return text;
}
