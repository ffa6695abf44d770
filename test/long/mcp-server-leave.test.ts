/**
 * `weft mcp` when its client leaves (stdin ends): it exits 0, and the run it had started is cancelled and recorded
 * (finished work kept), not left "running" for a process that is gone. stdout held nothing but protocol lines,
 * even with junk on stdin. A child process that starts tsx and a run: seconds, so it lives here.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/cli-harness.js';
import { ROOT } from '../e2e/weft-cli.js';

describe('weft mcp, when the client leaves', () => {
  it('exits 0 once stdin ends, with the run it had started cancelled and recorded', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'weft-mcp-leave-'));
    try {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--home', scratch, '--model', 'sim:seed=1,latency=fixed(200)'],
        { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'weft_run', arguments: { task: 'tea' } } });
      // Junk on stdin is not the end of the conversation.
      child.stdin.write('\u0000\u00ff not json {{\n');
      while (!out.includes('"id":2') && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 20));
      child.stdin.end();
      expect(await exited).toBe(0);
      const lines = out.trim().split('\n');
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      const answer = JSON.parse(lines.find((line) => line.includes('"id":2'))!) as {
        result: { content: { text: string }[] };
      };
      const { runId } = JSON.parse(answer.result.content[0]!.text) as { runId: string };
      const shown = await cli(['show', runId, '--home', scratch, '--json']);
      expect(shown.code, shown.stderr).not.toBe(2);
      expect((JSON.parse(shown.stdout) as { status: string }).status).toBe('cancelled');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
