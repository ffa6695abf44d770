/**
 * `weft mcp`'s server in this process, with the SDK's own client over its in-memory transport: the protocol as a
 * client speaks it (schemas, tool errors, notifications) without a child process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { loadContext, loadModel, openStore } from '../../src/cli/context.js';
import { createWeftMcpServer } from '../../src/serve/mcp-server.js';
import type { RunStore } from '../../src/index.js';

export interface McpHarness {
  readonly client: Client;
  readonly store: RunStore;
  readonly home: string;
  /** Every run the server started has ended. */
  settled(): Promise<void>;
  /** Stops the server (cancelling its runs), closes the client and the store, removes the home. */
  close(): Promise<void>;
}

export async function startMcp(
  options: { model?: string; maxRuns?: number; pollMs?: number; modelMissing?: string } = {},
): Promise<McpHarness> {
  const home = mkdtempSync(join(tmpdir(), 'weft-mcp-test-'));
  const context = await loadContext({ home });
  const model = await loadModel(options.model ?? 'sim:seed=3,tasks=2', context.config);
  const store = await openStore(context);
  const stop = new AbortController();
  const { server, settled } = await createWeftMcpServer({
    context,
    model,
    store,
    signal: stop.signal,
    log: () => {},
    version: 'test',
    ...(options.maxRuns !== undefined ? { maxRuns: options.maxRuns } : {}),
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    ...(options.modelMissing !== undefined ? { modelMissing: options.modelMissing } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(clientSide);
  return {
    client,
    store,
    home,
    settled,
    close: async () => {
      stop.abort();
      await settled();
      await client.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

export function text(result: ToolResult): string {
  return (result.content as { text: string }[]).map((block) => block.text).join('');
}

/** Calls a tool that must succeed and parses its JSON answer. */
export async function callJson<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
  return JSON.parse(text(result)) as T;
}

/** Calls a tool that must fail and answers its error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) throw new Error(`${name} succeeded: ${text(result)}`);
  return text(result);
}
