/**
 * A reader that stops early (`weft runs | head -1`) closes the pipe under the CLI. That is a normal end: exit 0,
 * no EPIPE stack trace, and a run whose progress pipe closes keeps going and is recorded to the end.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedRuns } from '../cli/seed-home.js';
import { jsonDocument, ROOT, weft } from './weft-cli.js';

const homes: string[] = [];
function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'weft-pipe-'));
  homes.push(home);
  return home;
}
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

interface Ended {
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * `weft <args>` with its stdout (and, with `closeStderr`, its stderr) read until the first chunk and then closed,
 * as `| head -c1` does. stderr is kept when it stays open.
 */
function weftClosingEarly(args: readonly string[], options: { closeStderr?: boolean } = {}): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.once('data', () => child.stdout.destroy());
    if (options.closeStderr) child.stderr.once('data', () => child.stderr.destroy());
    else child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed stdout', () => {
  it('ends `weft runs` normally: exit 0 and no stack trace', async () => {
    const home = newHome();
    // Enough lines that some are written after the reader has gone.
    await seedRuns(
      home,
      Array.from({ length: 400 }, (_, index) => ({
        runId: `r${String(index).padStart(4, '0')}`,
        status: 'completed' as const,
        ageMs: 1000,
      })),
    );
    const ended = await weftClosingEarly(['runs', '--home', home]);
    expect(ended.stderr).not.toMatch(/EPIPE|at .*\.ts:\d+/);
    expect(ended.code, ended.stderr).toBe(0);
  }, 60_000);

  it('does not stop a run whose output pipes close: the run finishes and is recorded', async () => {
    const home = newHome();
    const ended = await weftClosingEarly(
      ['run', 'write a report in six parts', '--model', 'sim:seed=5,tasks=6,latency=fixed(20)', '--home', home],
      { closeStderr: true },
    );
    expect(ended.code).toBe(0);
    const runs = jsonDocument(await weft(['runs', '--home', home, '--json'])).runs as { status: string }[];
    expect(runs.map((run) => run.status)).toEqual(['completed']);
  }, 60_000);
});
