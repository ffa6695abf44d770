/**
 * `weft solve` stopped by SIGINT or SIGTERM mid-solve: the running tool call is waited for (a second signal quits at
 * once), then the calls made so far are saved as an unsuccessful trace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/cli-harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-solve-signals-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Resolves once `check` holds, polling; fails after 20 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function start(home: string): {
  child: ChildProcess;
  started: string;
  exit: Promise<number | null>;
  stderr: () => string;
} {
  const started = join(home, 'started');
  writeFileSync(
    join(home, 'tools.mjs'),
    `import { writeFileSync } from 'node:fs';
export const add = { description: 'a + b', inputSchema: { type: 'object' }, execute: ({ a, b }) => a + b };
export const pause = {
  description: 'waits',
  inputSchema: { type: 'object' },
  execute: () => { writeFileSync(${JSON.stringify(started)}, 'x'); return new Promise((resolve) => setTimeout(resolve, 2000)); },
};
`,
  );
  writeFileSync(join(home, 'tools.yaml'), 'tools:\n  - kind: module\n    path: ./tools.mjs\n');
  writeFileSync(
    join(home, 'script.json'),
    JSON.stringify({
      replies: [
        { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
        { toolCalls: [{ name: 'pause', args: {} }] },
        { text: '3' },
      ],
    }),
  );
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'solve',
      'Add 1 and 2',
      '--tools',
      join(home, 'tools.yaml'),
      '--input',
      '{}',
      '--model',
      `scripted:${join(home, 'script.json')}`,
      '--home',
      home,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, started, exit, stderr: () => stderr };
}

describe('weft solve stopped by a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal}: exit 1, and the trace so far is saved with its finished call`, async () => {
      const home = join(scratch, signal);
      rmSync(home, { recursive: true, force: true });
      mkdirSync(home, { recursive: true });
      const run = start(home);
      await until(() => existsSync(run.started), 'the pausing tool');
      run.child.kill(signal);
      expect(await run.exit).toBe(1);
      const traceId = /the trace so far is saved as (t-[0-9a-f-]+)/.exec(run.stderr())?.[1];
      expect(traceId, run.stderr()).toBeDefined();
      const shown = await cli(['traces', 'show', traceId as string, '--home', home, '--json']);
      const trace = JSON.parse(shown.stdout) as { success: boolean; error: string; calls: { tool: string }[] };
      expect(trace.success).toBe(false);
      expect(trace.error).toContain('cancelled');
      expect(trace.calls.map((call) => call.tool)).toContain('add');
    }, 30_000);
  }
});
