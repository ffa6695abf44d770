/**
 * `weft mcp` sent a message over its 10 MiB limit: it answers a JSON-RPC error naming the request, says so on
 * stderr and keeps serving (a ping after it is answered), instead of closing the transport and exiting 0 silently.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../src/cli/ops/mcp-command.js';
import { ROOT } from '../e2e/weft-cli.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'weft-mcp-big-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

describe('weft mcp and a message over its limit', () => {
  it('answers an 11 MB request with an error, logs it, and answers a ping after it', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--home', home, '--model', 'sim:seed=1'],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const replies: Reply[] = [];
    const pinged = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const lines = stdout.split('\n');
        stdout = lines.pop() ?? '';
        for (const line of lines) {
          const reply = JSON.parse(line) as Reply;
          replies.push(reply);
          if (reply.id === 3) resolve();
        }
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const big = 'x'.repeat(11_000_000);
    expect(big.length).toBeGreaterThan(MAX_MESSAGE_BYTES);
    // The SDK's clients write the id last; other clients write it first.
    const first = {
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'weft_exec', arguments: { workflow: big } },
      id: 1,
    };
    send(first);
    send({
      jsonrpc: '2.0',
      id: 'two',
      method: 'tools/call',
      params: { name: 'weft_exec', arguments: { workflow: big } },
    });
    send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    // A server that leaves instead (the SDK's reader alone) fails here, not at the test's timeout.
    await Promise.race([
      pinged,
      exited.then((code) => {
        throw new Error(`weft mcp exited (${code}) before answering the ping; stderr:\n${stderr}`);
      }),
    ]);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(replies.map((reply) => reply.id)).toEqual([1, 'two', 3]);
    for (const reply of replies.slice(0, 2)) {
      expect(reply.error?.code).toBe(-32600);
      expect(reply.error?.message).toMatch(/^message of \d{8} bytes refused: weft mcp reads at most 10485760 bytes/);
    }
    expect(replies[0]?.error?.message).toContain(`message of ${JSON.stringify(first).length} bytes refused`);
    expect(replies[2]).toMatchObject({ id: 3, result: {} });
    expect(stderr).toMatch(/weft mcp: message of \d{8} bytes refused: .* \(request id 1\); still serving/);
    expect(stderr).toMatch(/\(request id "two"\); still serving/);
  }, 60_000);
});
