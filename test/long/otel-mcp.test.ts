/**
 * `weft mcp --otel` as an MCP client runs it (a child process on stdio): each `weft_run` is a trace of its own,
 * and the spans are flushed to a real OTLP/HTTP receiver when the client closes stdin and the server exits.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../cli/otlp-receiver.js';
import { ROOT } from '../e2e/weft-cli.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

describe('weft mcp --otel', () => {
  it('exports a trace per weft_run and flushes when the client goes away', { timeout: 60_000 }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-mcp-otel-'));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), NO_COLOR: '1' };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'mcp',
        '--home',
        home,
        '--model',
        'sim:seed=4,tasks=3',
        '--otel',
        receiver.url,
      ],
      cwd: ROOT,
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'weft-test', version: '1.0.0' });
    await client.connect(transport);
    const runIds: string[] = [];
    for (const task of ['a report on tea', 'a report on coffee']) {
      const result = await client.callTool({ name: 'weft_run', arguments: { task, wait: true } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      runIds.push((JSON.parse((result.content as { text: string }[])[0]!.text) as { runId: string }).runId);
    }
    const pid = transport.pid!;
    await client.close();
    // The server flushes before it exits: wait for the process to be gone.
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(stderr).toContain(`tracing to ${receiver.url}/v1/traces`);
    const runs = receiver.spans.filter((span) => span.name === 'invoke_workflow');
    expect(runs.map((span) => span.attributes['gen_ai.conversation.id']).sort()).toEqual([...runIds].sort());
    expect(new Set(runs.map((span) => span.traceId)).size).toBe(2);
    for (const run of runs) expect(run.attributes['weft.run.status']).toBe('completed');
  });
});
