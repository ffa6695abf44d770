/**
 * `weft serve` never writes: in a child process, a session of requests and live streams, then SIGINT, leaves the
 * store and the home exactly as they were (the same bytes in weft.db, no -wal/-shm or other new files left).
 * (serve-signals.test.ts covers the signals themselves.)
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../e2e/weft-cli.js';

function weftArgs(args: readonly string[]): string[] {
  return ['--import', 'tsx', 'src/cli/main.ts', ...args];
}

function homeWithRun(): { home: string; runId: string } {
  const home = mkdtempSync(join(tmpdir(), 'weft-serve-long-'));
  const made = spawnSync(
    process.execPath,
    weftArgs(['run', 'a task', '--model', 'sim:seed=3', '--home', home, '--json']),
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  expect(made.status, made.stderr).toBe(0);
  return { home, runId: (JSON.parse(made.stdout) as { runId: string }).runId };
}

function snapshot(home: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(home, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    files[path] = entry.isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'folder';
  }
  return files;
}

async function serve(home: string) {
  const child = spawn(process.execPath, weftArgs(['serve', '--port', '0', '--home', home, '--json']), {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1' },
  }) as ChildProcessWithoutNullStreams;
  let stdout = '';
  child.stdout.setEncoding('utf8');
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const started = await new Promise<{ port: number; token: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      try {
        resolve(JSON.parse(stdout) as { port: number; token: string });
      } catch {
        // not all of the document yet
      }
    });
    child.once('close', () => reject(new Error(`weft serve exited before printing its address: ${stdout}`)));
  });
  return {
    child,
    closed,
    base: `http://127.0.0.1:${started.port}`,
    auth: { Authorization: `Bearer ${started.token}` },
  };
}

describe('weft serve in a child process', () => {
  it('a session of requests and streams, then SIGINT: exit 0, and the home is as it was', async () => {
    const { home, runId } = homeWithRun();
    const before = snapshot(home);
    const { child, closed, base, auth } = await serve(home);
    for (const path of ['/api/runs', `/api/runs/${runId}`, `/api/runs/${runId}/plans`, '/api/sessions', '/']) {
      expect((await fetch(`${base}${path}`, { headers: auth })).status).toBe(200);
    }
    const streams = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${base}/api/runs/${runId}/events`, { headers: auth });
      const reader = response.body!.getReader();
      await reader.read();
      streams.push(reader);
    }
    child.kill('SIGINT');
    expect(await closed).toBe(0);
    for (const reader of streams) {
      // Each stream ends (done, or the connection dropped): none is left hanging.
      await reader.read().then(
        async function drain(result): Promise<void> {
          if (!result.done) await reader.read().then(drain);
        },
        () => undefined,
      );
    }
    expect(snapshot(home)).toEqual(before);
  }, 60_000);
});
