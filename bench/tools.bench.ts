/**
 * Tool layer overhead, measured side by side in one run:
 * - module: `callTool` on an in-process module tool (defineTool with a zod schema) against the time its own
 *   `execute` took, call by call: what the layer adds (ajv check, timeout, signal, zod parse, result copy).
 * - stdio MCP: one `echo` on the fixture MCP server through Weft (`callTool` on the tool openMcpTools made) and the
 *   same call straight through the SDK's Client and StdioClientTransport on a second copy of the server,
 *   alternated call by call so that both see the same machine load.
 */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { callTool } from '../src/tools/call-tool.js';
import { defineTool, toolFromDefinition } from '../src/tools/define-tool.js';
import { openMcpTools } from '../src/tools/mcp-tools.js';
import type { Tool } from '../src/tools/tool.js';
import type { Bench, BenchReport } from './report.js';
import { summarize } from './stats.js';

const MODULE_WARMUP = 2_000;
const MODULE_CALLS = 20_000;
const MCP_WARMUP = 100;
const MCP_CALLS = 1_000;
const STDIO_SERVER = fileURLToPath(new URL('../test/fixtures/mcp/stdio-server.mjs', import.meta.url));

export const toolsBench: Bench = {
  name: 'tools',
  async run(): Promise<BenchReport> {
    const module = await moduleOverhead();
    const mcp = await mcpCalls();
    return {
      title: `Tool layer: callTool on a module tool (${MODULE_CALLS} calls) and on a stdio MCP tool (${MCP_CALLS} calls, against the SDK alone)`,
      rows: [
        {
          label: 'module tool: callTool overhead beyond execute, p50',
          value: module.overhead.p50,
          unit: 'ms',
          goal: { comparison: '<', target: 0.2 },
        },
        { label: 'module tool: callTool overhead beyond execute, p95', value: module.overhead.p95, unit: 'ms' },
        { label: 'module tool: execute alone, p50', value: module.own.p50, unit: 'ms' },
        { label: 'stdio MCP echo through Weft (callTool), p50', value: mcp.weft.p50, unit: 'ms' },
        { label: 'stdio MCP echo through Weft (callTool), p95', value: mcp.weft.p95, unit: 'ms' },
        { label: 'stdio MCP echo through the SDK client alone, p50', value: mcp.sdk.p50, unit: 'ms' },
        { label: 'stdio MCP echo through the SDK client alone, p95', value: mcp.sdk.p95, unit: 'ms' },
        {
          label: 'stdio MCP: Weft p50 − SDK p50 (the layer’s overhead)',
          value: mcp.weft.p50 - mcp.sdk.p50,
          unit: 'ms',
        },
        { label: 'stdio MCP: Weft p50 / SDK p50', value: mcp.weft.p50 / mcp.sdk.p50 },
        { label: 'stdio MCP: openMcpTools (spawn, initialize, 4 list pages)', value: mcp.startMs, unit: 'ms' },
        { label: 'stdio MCP: close (stdin end to exit)', value: mcp.closeMs, unit: 'ms' },
      ],
      notes: [
        'Overhead: each call’s callTool time minus the time its execute took, measured inside it (performance.now).',
        'The MCP server is test/fixtures/mcp/stdio-server.mjs (Node, the SDK’s server); both clients are in this process.',
      ],
    };
  },
};

async function moduleOverhead(): Promise<{
  overhead: ReturnType<typeof summarize>;
  own: ReturnType<typeof summarize>;
}> {
  let ownMs = 0;
  const tool = toolFromDefinition(
    defineTool({
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        const started = performance.now();
        const sum = { sum: a + b };
        ownMs = performance.now() - started;
        return sum;
      },
    }),
    { name: 'add', source: 'module bench', where: 'bench#add' },
  );
  const overhead: number[] = [];
  const own: number[] = [];
  for (let index = 0; index < MODULE_WARMUP + MODULE_CALLS; index++) {
    const started = performance.now();
    const outcome = await callTool(tool, { a: index, b: 1 });
    const total = performance.now() - started;
    if (!outcome.ok) throw outcome.error;
    if (index >= MODULE_WARMUP) {
      overhead.push(total - ownMs);
      own.push(ownMs);
    }
  }
  return { overhead: summarize(overhead), own: summarize(own) };
}

async function mcpCalls(): Promise<{
  weft: ReturnType<typeof summarize>;
  sdk: ReturnType<typeof summarize>;
  startMs: number;
  closeMs: number;
}> {
  const started = performance.now();
  const set = await openMcpTools({
    name: 'bench',
    transport: { type: 'stdio', command: process.execPath, args: [STDIO_SERVER], env: {} },
  });
  const startMs = performance.now() - started;
  const [{ Client }, { StdioClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
  ]);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [STDIO_SERVER], stderr: 'ignore' }));
  const echo = set.tools.find((tool) => tool.name === 'echo') as Tool;
  const throughWeft = async (): Promise<void> => {
    const outcome = await callTool(echo, { text: 'hello' });
    if (!outcome.ok) throw outcome.error;
  };
  const throughSdk = async (): Promise<void> => {
    await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  };
  const weft: number[] = [];
  const sdk: number[] = [];
  let closeMs = 0;
  try {
    for (let index = 0; index < MCP_WARMUP; index++) {
      await throughWeft();
      await throughSdk();
    }
    for (let index = 0; index < MCP_CALLS; index++) {
      for (const [call, samples] of [
        [throughWeft, weft],
        [throughSdk, sdk],
      ] as const) {
        const callStarted = performance.now();
        await call();
        samples.push(performance.now() - callStarted);
      }
    }
  } finally {
    const closing = performance.now();
    await set.close();
    closeMs = performance.now() - closing;
    await client.close();
  }
  return { weft: summarize(weft), sdk: summarize(sdk), startMs, closeMs };
}
