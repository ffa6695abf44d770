/**
 * `weft mcp`: serves Weft's tools to an MCP client over stdio until the client closes stdin (or SIGINT/SIGTERM).
 * Runs it started and not finished then are cancelled; their finished work stays in the store.
 */
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { isWeftError, redactModelSpec, WeftError } from '../../internal.js';
import { type CommonFlags, loadContext, loadModel, type ModelContext, openStore } from '../context.js';
import { boundedMessageLines } from '../../serve/bounded-message-lines.js';
import { createWeftMcpServer } from '../../serve/mcp-server.js';
import type { Output } from '../output.js';

/** The longest message a client may send, as the SDK's own reader allows (10 MiB). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** JSON-RPC's code for a request that is not a valid one. */
const INVALID_REQUEST = -32600;

const VERSION = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

export async function mcpCommand(flags: CommonFlags, output: Output, signal: AbortSignal): Promise<number> {
  const context = await loadContext(flags);
  const { model, modelMissing } = await modelOrMissing(flags, context);
  const store = await openStore(context);
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let guard: StdoutGuard | undefined;
  try {
    const { server, settled } = await createWeftMcpServer({
      context,
      model,
      ...(modelMissing !== undefined ? { modelMissing } : {}),
      store,
      signal: stop.signal,
      log: output.log,
      version: VERSION,
    });
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    // The protocol owns the process's real stdin and stdout; logs go to stderr, and so does whatever else writes to
    // stdout (a module tool's console.log), which would otherwise corrupt the protocol for the client.
    guard = guardStdout();
    const protocol = guard.protocol;
    // A message over the limit is answered (a JSON-RPC error naming its id when its ends show it) and the server
    // goes on; the SDK's reader alone would close the transport, and the server would exit 0 without a word.
    const lines = boundedMessageLines(MAX_MESSAGE_BYTES, ({ bytes, id }) => {
      const message = `message of ${bytes} bytes refused: weft mcp reads at most ${MAX_MESSAGE_BYTES} bytes a message`;
      output.log(`weft mcp: ${message}${id === null ? '' : ` (request id ${JSON.stringify(id)})`}; still serving`);
      protocol.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } })}\n`);
    });
    process.stdin.pipe(lines);
    // Each line reaches the SDK's reader whole and alone, so its own limit (just above ours) is never reached.
    const transport = new StdioServerTransport(lines, protocol, { maxBufferSize: MAX_MESSAGE_BYTES + 2 });
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.connect(transport);
    // A message the SDK cannot read (not JSON, not JSON-RPC) is dropped by it: said on stderr, clipped.
    server.server.onerror = (error) => output.log(`weft mcp: ${error.message.slice(0, 300)}`);
    output.log(
      `weft mcp: serving on stdio (${modelMissing === undefined ? `model ${redactModelSpec(model.model.id)}` : 'no model: weft_plan and weft_run answer how to give one'}, home ${context.home})`,
    );
    await closed;
    stop.abort();
    await settled();
    await server.close().catch(() => {});
    return 0;
  } finally {
    guard?.restore();
    signal.removeEventListener('abort', onAbort);
    await store.close();
  }
}

/**
 * The model, or, when none is given or configured, a stand-in that refuses every call and the reason to tell a
 * client: listing runs, showing them, eval and exec need no model, so the server starts anyway.
 */
export async function modelOrMissing(
  flags: CommonFlags,
  context: Awaited<ReturnType<typeof loadContext>>,
): Promise<{ model: ModelContext; modelMissing?: string }> {
  try {
    return { model: await loadModel(flags.model, context.config) };
  } catch (error) {
    if (!isWeftError(error) || error.code !== 'MODEL_CONFIG' || flags.model !== undefined) throw error;
    const modelMissing = `weft mcp was started without a model; restart it with --model SPEC (e.g. weft mcp --model openai:gpt-4o-mini), or set WEFT_MODEL or "model:" in the config. ${error.message}`;
    const refuse = async (): Promise<never> => {
      throw new WeftError('MODEL_CONFIG', modelMissing);
    };
    return {
      model: { model: { id: 'none', kind: 'real', generate: refuse }, source: 'none', costOf: () => 0 },
      modelMissing,
    };
  }
}

interface StdoutGuard {
  /** Writes to the real stdout: the protocol's messages only. */
  readonly protocol: Writable;
  /** Gives process.stdout its own write back. */
  restore(): void;
}

/** Sends every other write to process.stdout (console.log included) to stderr while the protocol owns stdout. */
function guardStdout(): StdoutGuard {
  const stdout = process.stdout;
  const write = stdout.write;
  const send = write as (chunk: Buffer, done: (error?: Error | null) => void) => boolean;
  const protocol = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      send.call(stdout, chunk, (error) => done(error ?? null));
    },
  });
  stdout.write = ((...args: Parameters<typeof stdout.write>) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as typeof stdout.write;
  return {
    protocol,
    restore: () => {
      stdout.write = write;
    },
  };
}
