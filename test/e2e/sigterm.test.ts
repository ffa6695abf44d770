/** SIGTERM (what process managers and `kill` send) stops `weft run` like Ctrl-C: the run ends cancelled and resumable. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEvents } from '../../src/run/run-events.js';
import { openRunStore } from '../../src/store/open-store.js';
import { ROOT } from './weft-cli.js';

describe('SIGTERM to weft run', () => {
  it('cancels the run, records it cancelled and exits 1 with the usual document', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-sigterm-'));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'run',
        'write a story in six parts',
        '--model',
        'sim:seed=8,tasks=6,latency=fixed(400)',
        '--home',
        home,
        '--json',
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      // Once a subtask has started, the run is under way.
      if (!sent && /start/.test(stderr)) {
        sent = true;
        child.kill('SIGTERM');
      }
    });
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    expect({ ...exit, stderr }).toMatchObject({ code: 1, signal: null });
    const document = JSON.parse(stdout) as { runId: string; status: string };
    expect(document.status).toBe('cancelled');
    const store = await openRunStore({ home });
    expect((await store.getRun(document.runId))?.status).toBe('cancelled');
    const end = (await runEvents(store, document.runId)).find((event) => event.type === 'run-end');
    await store.close();
    expect(end?.type === 'run-end' ? end.reason : undefined).toMatch(/SIGTERM/);
    // The hint that continues it, on stderr (stdout holds the one JSON document).
    expect(stderr).toContain(`Resume with: weft resume ${document.runId}`);
  }, 60_000);
});

describe('SIGTERM to weft serve', () => {
  it('one SIGTERM stops it: exit 0 with its own words, no second signal needed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-sigterm-serve-'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--home', home],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let sent = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      // Serving once it prints its URL.
      if (!sent && chunk.includes('weft dashboard:')) {
        sent = true;
        child.kill('SIGTERM');
      }
    });
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    expect(sent).toBe(true);
    expect({ ...exit, stderr }).toMatchObject({ code: 0, signal: null });
    expect(stderr).toContain('weft serve: stopping the dashboard (SIGTERM)');
    expect(stderr).not.toMatch(/finished work is kept|again to quit/);
  }, 60_000);
});
