/**
 * Tools from a Model Context Protocol server (issue 12), over stdio (a process Weft starts) or Streamable HTTP.
 * The server's tools are listed once at start-up (every page); each becomes a Tool whose `call` is the server's
 * `tools/call` under callTool's signal. The SDK (@modelcontextprotocol/sdk) loads on first use only.
 *
 * Failures are WeftErrors naming the server (`MCP server files (stdio)`): a command that does not exist or a URL
 * that is not one is BAD_INPUT (located at the server's declaration); a server that exits, stalls or refuses while
 * starting, or dies later, is TOOL with its exit code and last stderr lines. Secrets (the env values, header
 * values and URL credentials of the config) never appear in a message.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isWeftError, type SourceLocation, WeftError } from '../errors.js';
import { redactUrl, scrubSecrets } from '../text/redact-url.js';
import type { McpServerConfig } from './mcp-config.js';
import { mcpErrorText, mcpResultValue } from './mcp-result.js';
import { ChildStdioTransport, type StdioFraming } from './mcp-stdio-transport.js';
import type { JsonValue, Tool, ToolSchema, ToolSet } from './tool.js';
import { compileToolSchema } from './validate-args.js';

export interface OpenMcpToolsOptions {
  /** Aborts connecting and listing. */
  readonly signal?: AbortSignal;
  /** How long the server may take to start and answer `initialize` and `tools/list` (default 20 s). */
  readonly startTimeoutMs?: number;
  /** How long `close()` lets a stdio server exit after closing its stdin, and again after SIGTERM (default 2 s). */
  readonly closeGraceMs?: number;
}

export const DEFAULT_MCP_START_TIMEOUT_MS = 20_000;
/** A server that keeps answering with new cursors is looping: this many pages is far beyond any real one. */
const MAX_LIST_PAGES = 1000;
/**
 * The SDK's own per-request timeout (60 s by default) would cut a call that callTool allows longer: the call's
 * signal carries Weft's deadline (the tool's `timeoutMs` or callTool's), so the SDK's is set out of the way.
 */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** At most this much of an error from the SDK or the server (an HTTP error body, say) goes into a message. */
const MAX_REASON = 1000;
/** What models accept as a function name (OpenAI's rule, the strictest of the providers). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** McpError codes (JSON-RPC), from the SDK's ErrorCode enum. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const REQUEST_TIMEOUT = -32001;

type Phase = 'start-up' | 'initialize' | 'tools/list';

interface ListedTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: ToolSchema;
  readonly outputSchema?: ToolSchema;
  readonly annotations?: {
    readonly title?: string;
    readonly readOnlyHint?: boolean;
    readonly idempotentHint?: boolean;
  };
}

export async function openMcpTools(config: McpServerConfig, options: OpenMcpToolsOptions = {}): Promise<ToolSet> {
  const label = `MCP server ${config.name} (${config.transport.type})`;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
  if (!(Number.isFinite(startTimeoutMs) && startTimeoutMs > 0)) {
    throw new WeftError('BAD_INPUT', `Expected startTimeoutMs > 0, got ${String(startTimeoutMs)}`, {
      location: { field: 'startTimeoutMs' },
    });
  }
  if (options.signal?.aborted) throw abortedError(options.signal);
  const secrets = secretsOf(config);
  const { client, transport, stdio, where } = await createConnection(config, label, options, secrets);
  /** The error to keep as a cause, unless its text holds a secret (a cause's message is printed with it). */
  const causeOf = (error: unknown): unknown => {
    const text = `${reasonOf(error)} ${(error as Error | undefined)?.message ?? ''} ${String((error as { cause?: { message?: unknown } } | undefined)?.cause?.message ?? '')}`;
    return secrets.some((secret) => text.includes(secret)) ? undefined : error;
  };
  // Secrets out first, then the cut: a cut first could leave half a secret that no longer matches.
  const describe = (text: string): string => {
    const scrubbed = scrubSecrets(text, secrets);
    return scrubbed.length > MAX_REASON
      ? `${scrubbed.slice(0, MAX_REASON)}… [${scrubbed.length} characters]`
      : scrubbed;
  };

  let serverGone = false;
  let closedByUs = false;
  let lastTransportError: string | undefined;
  client.onclose = () => {
    serverGone = true;
  };
  client.onerror = (error) => {
    lastTransportError ??= describe(error.message).slice(0, 300);
  };

  /** What a stdio server left behind: `exited with code 3 <when>` and its last stderr lines. */
  const endedText = (when = ''): string => {
    if (!stdio) return `closed the connection${when}`;
    const exit = stdio.exit;
    const how = stdio.stoppedBecause
      ? `was stopped: ${stdio.stoppedBecause}`
      : !exit
        ? 'closed its output'
        : exit.signal
          ? `was killed by ${exit.signal}`
          : `exited with code ${String(exit.code)}`;
    return `${how}${when}${stderrText()}`;
  };
  const stderrText = (): string => {
    const lines = stdio?.stderrTail() ?? [];
    return lines.length === 0
      ? ''
      : `; its last stderr lines:\n${lines.map((line) => `  ${describe(line)}`).join('\n')}`;
  };

  // Starting: connect (spawn + initialize) and list, under one deadline and the caller's signal.
  const deadline = new AbortController();
  let phase: Phase = 'start-up';
  const timer = setTimeout(
    () => deadline.abort(new WeftError('TIMEOUT', 'start deadline', { retryable: true })),
    startTimeoutMs,
  );
  const onCallerAbort = (): void => deadline.abort(options.signal!.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  stdio?.hold();
  let listed: ListedTool[];
  try {
    const request = { signal: deadline.signal, timeout: NO_SDK_TIMEOUT };
    // Spawning first, so that a missing command is told apart from a server that fails its handshake.
    if (stdio) await stdio.start();
    phase = 'initialize';
    await client.connect(transport, request);
    phase = 'tools/list';
    listed = await listAllTools(client, request, label);
  } catch (error) {
    stdio?.release();
    await client.close().catch(() => {});
    if (stdio?.spawnError) throw spawnFailure(config, label, stdio.spawnError);
    if (options.signal?.aborted) throw abortedError(options.signal);
    if (deadline.signal.aborted) {
      throw new WeftError(
        'TOOL',
        `${label}${where} did not start within ${startTimeoutMs} ms (no answer to ${phase === 'tools/list' ? 'tools/list' : 'initialize'})${lastTransportError ? `; it wrote: ${lastTransportError}` : ''}${stderrText()}`,
        { cause: error, retryable: true, location: locationOf(config) },
      );
    }
    if (stdio && (serverGone || stdio.exit)) {
      throw new WeftError('TOOL', `${label} ${endedText(` before it finished starting (during ${phase})`)}`, {
        cause: error,
        location: locationOf(config),
      });
    }
    throw new WeftError('TOOL', `${label}${where} failed during ${phase}: ${describe(reasonOf(error))}`, {
      cause: causeOf(error),
      retryable: isConnectionRefused(error),
      location: locationOf(config),
    });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
  stdio?.release();

  let tools: Tool[];
  try {
    tools = toolsOf(listed, config, label);
    // A schema ajv cannot read fails here, naming the server, rather than at the first call of the tool.
    for (const tool of tools) await compileToolSchema(tool.name, tool.inputSchema);
  } catch (error) {
    await client.close().catch(() => {});
    if (isWeftError(error) && error.message.startsWith('Tool "')) {
      throw new WeftError('BAD_INPUT', `${label}: ${error.message}`, { cause: error, location: locationOf(config) });
    }
    throw error;
  }
  const source = `mcp ${config.name} (${config.transport.type})`;
  const idempotent = new Set(config.idempotent ?? []);

  const call = async (name: string, args: JsonValue, signal: AbortSignal): Promise<JsonValue> => {
    if (closedByUs) throw new WeftError('TOOL', `${label} is closed`);
    if (serverGone) throw new WeftError('TOOL', `${label} is not running: it ${endedText()}`);
    if (signal.aborted) throw signal.reason;
    stdio?.hold();
    try {
      const result = (await client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, {
        signal,
        timeout: NO_SDK_TIMEOUT,
      })) as Parameters<typeof mcpResultValue>[0];
      if (result.isError === true) throw new WeftError('TOOL', mcpErrorText(result));
      return mcpResultValue(result);
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      if (isWeftError(error)) throw error;
      if (closedByUs) throw new WeftError('TOOL', `${label} was closed during the call`, { cause: error });
      if (serverGone) throw new WeftError('TOOL', `${label} ${endedText(' during the call')}`, { cause: error });
      const code = (error as { code?: unknown }).code;
      if (code === REQUEST_TIMEOUT)
        throw new WeftError('TIMEOUT', describe(reasonOf(error)), { cause: causeOf(error) });
      throw new WeftError('TOOL', `${label}${where}: ${describe(reasonOf(error))}`, {
        cause: causeOf(error),
        retryable: isConnectionRefused(error),
      });
    } finally {
      stdio?.release();
    }
  };

  const result: Tool[] = tools.map((tool) => ({
    ...tool,
    idempotent: idempotent.has(tool.name) || tool.idempotent === true,
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    source,
    call: (args, context) => call(tool.name, args, context.signal),
  }));

  let closing: Promise<void> | undefined;
  return {
    tools: result,
    close() {
      closing ??= (async () => {
        closedByUs = true;
        const http = transport as { terminateSession?: () => Promise<void>; sessionId?: string };
        if (!stdio && http.sessionId !== undefined && http.terminateSession && !serverGone) {
          // Ends the session on the server (DELETE), bounded: a server that went away must not hold up Weft's end.
          await withTimeout(
            http.terminateSession().catch(() => {}),
            options.closeGraceMs ?? 2000,
          );
        }
        await client.close().catch(() => {});
      })();
      return closing;
    },
  };
}

/** The client and its transport, not yet started. `where` is ` at <url>` for HTTP (credentials removed). */
async function createConnection(
  config: McpServerConfig,
  label: string,
  options: OpenMcpToolsOptions,
  secrets: string[],
): Promise<{ client: Client; transport: Transport; stdio?: ChildStdioTransport; where: string }> {
  const spec = config.transport;
  if (spec.type === 'stdio') {
    if (typeof spec.command !== 'string' || spec.command.trim() === '') {
      throw new WeftError('BAD_INPUT', `${label}: command is empty`, { location: locationOf(config, 'command') });
    }
    const [{ Client }, framing] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      loadFraming(),
    ]);
    const stdio = new ChildStdioTransport(
      {
        command: spec.command,
        args: spec.args,
        env: spec.env,
        ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
        ...(options.closeGraceMs !== undefined ? { graceMs: options.closeGraceMs } : {}),
      },
      framing,
    );
    return { client: newClient(Client), transport: stdio, stdio, where: '' };
  }
  const target = httpTarget(config, label, secrets);
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  const transport = new StreamableHTTPClientTransport(target.url, {
    requestInit: { headers: target.headers },
    fetch: withoutStandingStream,
  });
  return { client: newClient(Client), transport, where: ` at ${target.display}` };
}

/**
 * fetch, except for the GET the SDK opens after the handshake to hear the server's own messages: Weft answers no
 * server requests (sampling, elicitation) and acts on no notifications, and that standing connection would keep
 * Node running after a ToolSet nobody closed. A 405 is how a server says it offers no such stream, which the SDK
 * accepts. A GET that resumes a broken response stream (`last-event-id`) goes through.
 */
function withoutStandingStream(url: string | URL, init?: RequestInit): Promise<Response> {
  if (init?.method === 'GET' && !new Headers(init.headers).has('last-event-id')) {
    return Promise.resolve(new Response(null, { status: 405 }));
  }
  return fetch(url, init);
}

async function loadFraming(): Promise<StdioFraming> {
  const [shared, client] = await Promise.all([
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
  ]);
  return {
    ReadBuffer: shared.ReadBuffer as unknown as StdioFraming['ReadBuffer'],
    serializeMessage: shared.serializeMessage,
    getDefaultEnvironment: client.getDefaultEnvironment,
  };
}

let weftVersion: string | undefined;

function newClient(ClientClass: typeof Client): Client {
  // package.json sits two folders up from both src/tools and dist/tools.
  weftVersion ??= (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
  return new ClientClass({ name: 'weft', version: weftVersion }, { capabilities: {} });
}

/**
 * The URL to connect to and how to show it. Credentials in the URL become a Basic Authorization header (fetch
 * refuses URLs that carry them), and the shown URL has them removed, as have secret query parameters.
 */
function httpTarget(
  config: McpServerConfig,
  label: string,
  secrets: string[],
): { url: URL; display: string; headers: Record<string, string> } {
  const spec = config.transport as Extract<McpServerConfig['transport'], { type: 'http' }>;
  const display = redactUrl(spec.url).display;
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    throw new WeftError('BAD_INPUT', `${label}: url is not a valid URL (${display})`, {
      location: locationOf(config, 'url'),
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WeftError('BAD_INPUT', `${label}: url must be http:// or https:// (got ${url.protocol})`, {
      location: locationOf(config, 'url'),
    });
  }
  const headers: Record<string, string> = { ...spec.headers };
  if (url.username !== '' || url.password !== '') {
    const basic = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    secrets.push(basic, basic.slice('Basic '.length));
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) headers.Authorization = basic;
    url.username = '';
    url.password = '';
  }
  return { url, display, headers };
}

/**
 * Every value of the config that may be a secret (`${env:NAME}` references are resolved before this layer sees
 * them): env and header values, and what redactUrl finds in the URL. Short values are left out: scrubbing `1`
 * from every message would garble them, and such a value guards nothing.
 */
function secretsOf(config: McpServerConfig): string[] {
  const values: string[] = [];
  const spec = config.transport;
  const add = (value: string): void => {
    if (value.length >= 6) values.push(value);
    // `Bearer TOKEN`: the token alone too, as a server may echo it.
    for (const word of value.split(/\s+/)) if (word.length >= 8 && word !== value) values.push(word);
  };
  if (spec.type === 'stdio') for (const value of Object.values(spec.env)) add(value);
  else {
    for (const value of Object.values(spec.headers)) add(value);
    values.push(...redactUrl(spec.url).secrets);
  }
  return values;
}

async function listAllTools(
  client: Client,
  request: { signal: AbortSignal; timeout: number },
  label: string,
): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, request);
    tools.push(...(result.tools as unknown as ListedTool[]));
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seenCursors.has(cursor)) {
      throw new WeftError('TOOL', `${label} answered tools/list with cursor "${cursor.slice(0, 80)}" twice (a loop)`);
    }
    seenCursors.add(cursor);
  }
  throw new WeftError('TOOL', `${label} listed more than ${MAX_LIST_PAGES} pages of tools`);
}

/** The listed tools as Weft's, `include` honoured; names checked as models need them. `call` is set by the caller. */
function toolsOf(listed: readonly ListedTool[], config: McpServerConfig, label: string): Tool[] {
  const byName = new Map<string, ListedTool>();
  for (const tool of listed) {
    if (byName.has(tool.name)) throw new WeftError('TOOL', `${label} lists tool "${tool.name}" twice`);
    byName.set(tool.name, tool);
  }
  const names = config.include ?? [...byName.keys()];
  const missing = names.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    const present = [...byName.keys()];
    throw new WeftError(
      'BAD_INPUT',
      `${label} has no tool ${missing.map((name) => `"${name}"`).join(', ')} (its tools: ${present.length > 0 ? present.join(', ') : 'none'})`,
      { location: locationOf(config, 'include') },
    );
  }
  return names.map((name) => {
    const tool = byName.get(name)!;
    if (!TOOL_NAME.test(name)) {
      throw new WeftError(
        'BAD_INPUT',
        `${label}: tool name "${name.slice(0, 80)}" is not one models accept (1-64 letters, digits, _ or -); list the others in include`,
        { location: locationOf(config, 'include') },
      );
    }
    const hints = tool.annotations ?? {};
    return {
      name,
      description: tool.description ?? tool.title ?? hints.title ?? '',
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      // A read-only tool changes nothing, so calling it twice is calling it once; `idempotentHint` says so outright.
      idempotent: hints.readOnlyHint === true || hints.idempotentHint === true,
      source: '',
      call: () => Promise.reject(new WeftError('INTERNAL', 'not bound')),
    };
  });
}

function spawnFailure(config: McpServerConfig, label: string, error: NodeJS.ErrnoException): WeftError {
  const spec = config.transport as Extract<McpServerConfig['transport'], { type: 'stdio' }>;
  const why =
    error.code === 'ENOENT'
      ? spec.cwd !== undefined && !isDirectory(spec.cwd)
        ? `command "${spec.command}" or working directory "${spec.cwd}" does not exist`
        : `command "${spec.command}" was not found (not a file, nor on PATH)`
      : error.code === 'EACCES'
        ? `command "${spec.command}" is not executable`
        : `command "${spec.command}" could not be started (${error.code ?? error.message})`;
  return new WeftError('BAD_INPUT', `${label}: ${why}`, { cause: error, location: locationOf(config, 'command') });
}

/** `tools.yaml:12:3` (the server's declaration in its tools file) as a location. */
function locationOf(config: McpServerConfig, field?: string): SourceLocation | undefined {
  const at = config.declaredAt;
  const withField = field ? { field: `mcp.${config.name}.${field}` } : {};
  if (at === undefined) return field ? withField : undefined;
  const match = /^(.*?):(\d+)(?::(\d+))?$/.exec(at);
  if (!match) return { file: at, ...withField };
  return {
    file: match[1]!,
    line: Number(match[2]),
    ...(match[3] !== undefined ? { column: Number(match[3]) } : {}),
    ...withField,
  };
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number' && error.message.startsWith('Streamable HTTP error: ')) {
    return `HTTP ${code}: ${error.message.slice('Streamable HTTP error: '.length)}`;
  }
  if (typeof code === 'number') {
    // An McpError's message is `MCP error CODE: ...`, twice over when the server's own handler threw an McpError.
    return `the server answered error ${code}: ${error.message.replace(/^(MCP error -?\d+: )+/, '')}`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  // fetch says only `fetch failed`; the reason (ECONNREFUSED, ENOTFOUND) is in its cause.
  if (error.message === 'fetch failed' && cause) {
    const code = String(cause.code ?? cause.message ?? 'unknown network error');
    return UNREACHABLE.has(code) ? `cannot be reached (${code})` : `the connection failed (${code})`;
  }
  return error.message;
}

/** A server that refuses connections may be restarting: worth another try (idempotent tools only, callTool decides). */
function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
}

function abortedError(signal: AbortSignal): WeftError {
  const reason: unknown = signal.reason;
  if (isWeftError(reason) && reason.code === 'ABORTED') return reason;
  return new WeftError('ABORTED', 'Starting the MCP server was aborted', { cause: reason });
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
