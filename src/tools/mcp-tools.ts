/**
 * Tools from a Model Context Protocol server, over stdio (a process Weft starts) or Streamable HTTP.
 * The server's tools are listed once at start-up (every page); each becomes a Tool whose `call` is the server's
 * `tools/call` under callTool's signal. The SDK (@modelcontextprotocol/sdk) loads on first use only.
 *
 * Failures are WeftErrors naming the server (`MCP server files (stdio)`): a command that does not exist or a URL
 * that is not one is BAD_INPUT (located at the server's declaration); a server that exits, stalls or refuses while
 * starting, or dies later, is TOOL with its exit code and last stderr lines. Secrets (the env values, header
 * values and URL credentials of the config) never appear in a message.
 */
import { createRequire } from 'node:module';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isWeftError, WeftError } from '../errors.js';
import { scrubSecrets } from '../text/redact-url.js';
import { abortedError } from './call-tool.js';
import type { McpServerConfig } from './mcp-config.js';
import { isConnectionRefused, reasonOf, spawnFailure } from './mcp-failures.js';
import { httpTarget, secretsOf, withoutStandingStream } from './mcp-http-target.js';
import { type ListedTool, listAllTools, toolsOf } from './mcp-list-tools.js';
import { mcpLocation } from './mcp-location.js';
import { mcpErrorText, mcpResultValue } from './mcp-result.js';
import { ChildStdioTransport, type StdioFraming } from './mcp-stdio-transport.js';
import type { JsonValue, Tool, ToolSet } from './tool.js';
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
const START_ABORTED = 'Starting the MCP server was aborted';
/**
 * The SDK's own per-request timeout (60 s by default) would cut a call that callTool allows longer: the call's
 * signal carries Weft's deadline (the tool's `timeoutMs` or callTool's), so the SDK's is set out of the way.
 */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** At most this much of an error from the SDK or the server (an HTTP error body, say) goes into a message. */
const MAX_REASON = 1000;
/** The McpError code of the SDK's own request timeout (its ErrorCode.RequestTimeout). */
const REQUEST_TIMEOUT = -32001;

type Phase = 'start-up' | 'initialize' | 'tools/list';

export async function openMcpTools(config: McpServerConfig, options: OpenMcpToolsOptions = {}): Promise<ToolSet> {
  const label = `MCP server ${config.name} (${config.transport.type})`;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
  if (!(Number.isFinite(startTimeoutMs) && startTimeoutMs > 0)) {
    throw new WeftError('BAD_INPUT', `Expected startTimeoutMs > 0, got ${String(startTimeoutMs)}`, {
      location: { field: 'startTimeoutMs' },
    });
  }
  if (options.signal?.aborted) throw abortedError(options.signal, START_ABORTED);
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
  // An abort while the connection was being made (the SDK loading) fired before the listener: it would be missed.
  if (options.signal?.aborted) onCallerAbort();
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
    if (options.signal?.aborted) throw abortedError(options.signal, START_ABORTED);
    if (deadline.signal.aborted) {
      throw new WeftError(
        'TOOL',
        `${label}${where} did not start within ${startTimeoutMs} ms (no answer to ${phase === 'tools/list' ? 'tools/list' : 'initialize'})${lastTransportError ? `; it wrote: ${lastTransportError}` : ''}${stderrText()}`,
        { cause: error, retryable: true, location: mcpLocation(config) },
      );
    }
    if (stdio && (serverGone || stdio.exit)) {
      throw new WeftError('TOOL', `${label} ${endedText(` before it finished starting (during ${phase})`)}`, {
        cause: error,
        location: mcpLocation(config),
      });
    }
    throw new WeftError('TOOL', `${label}${where} failed during ${phase}: ${describe(reasonOf(error))}`, {
      cause: causeOf(error),
      retryable: isConnectionRefused(error),
      location: mcpLocation(config),
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
      throw new WeftError('BAD_INPUT', `${label}: ${error.message}`, { cause: error, location: mcpLocation(config) });
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
    ...(config.maxResultBytes !== undefined ? { maxResultBytes: config.maxResultBytes } : {}),
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
      throw new WeftError('BAD_INPUT', `${label}: command is empty`, { location: mcpLocation(config, 'command') });
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

async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
