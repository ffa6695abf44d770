/**
 * `weft run --otel` to a collector that accepts connections and never answers, stopped by SIGTERM or SIGINT
 * mid-run: the process still exits, with the cancelled run's exit code, after one bounded flush and one warning.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

const sockets: Socket[] = [];
const silent = createServer((socket) => sockets.push(socket));
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

function weftUntil(signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string; sent: boolean }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', OTEL_EXPORTER_OTLP_TIMEOUT: '1000' };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const home = mkdtempSync(join(tmpdir(), 'weft-otel-silent-'));
  const args = ['run', 'write a story in six parts', '--model', 'sim:seed=8,tasks=6,latency=fixed(400)'];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', ...args, '--home', home, '--otel', `http://127.0.0.1:${port}`],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  let sent = false;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (!sent && /start t/.test(stderr)) {
      sent = true;
      child.kill(signal);
    }
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr, sent })));
}

describe('weft run --otel, a silent collector and a signal', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: the run is cancelled, the flush gives up after its bound, and the process exits`, async () => {
      const exit = await weftUntil(signal);
      expect(exit.sent).toBe(true);
      expect(exit.code, exit.stderr).toBe(1);
      expect(exit.stderr).toContain('run cancelled');
      expect(exit.stderr.match(/traces not delivered/g)).toHaveLength(1);
      expect(exit.stderr).toContain('no answer from the collector within 1000 ms');
    }, 60_000);
  }
});
