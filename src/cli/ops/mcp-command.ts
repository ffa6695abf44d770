/**
 * `weft mcp`: serves Weft's tools to an MCP client over stdio until the client closes stdin (or SIGINT/SIGTERM).
 * Runs it started and not finished then are cancelled; their finished work stays in the store.
 */
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { isWeftError, redactModelSpec, WeftError } from '../../internal.js';
import { type CommonFlags, loadContext, loadModel, type ModelContext, openStore } from '../context.js';
import { createWeftMcpServer } from '../../serve/mcp-server.js';
import type { Output } from '../output.js';

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
    const transport = new StdioServerTransport(process.stdin, guard.protocol);
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.connect(transport);
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
