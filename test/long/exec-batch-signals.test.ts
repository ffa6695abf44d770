/**
 * `weft exec --inputs` as a user stops it, in a real child process: SIGINT and SIGTERM stop taking cases, let the
 * running ones finish, print how to resume and exit 130; kill -9 leaves running cases started without a result,
 * which the resume reports as interrupted without running them again. In every case no case calls its tool twice
 * (counted by the fixture's `record` tool).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchLog, homeBatches } from '../cli/batch-store-harness.js';
import { cli } from '../cli/cli-harness.js';

const FIXTURES = new URL('../fixtures/workflows/batch/', import.meta.url).pathname;
const WORKFLOW = join(FIXTURES, 'batch.workflow.json');
const TOOLS = join(FIXTURES, 'tools.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'weft-exec-signals-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function callCounts(file: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(file)) return counts;
  for (const tag of readFileSync(file, 'utf8').split('\n').filter(Boolean)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return counts;
}

function lines(file: string): number {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function start(home: string, pauseMs: number) {
  const calls = join(home, 'calls.txt');
  const inputs = join(home, 'cases.jsonl');
  const out = join(home, 'out.jsonl');
  mkdirSync(home, { recursive: true });
  // 20 cases that each wait pauseMs in their second tool (n >= 1000 pauses n - 1000 ms).
  writeFileSync(
    inputs,
    `${Array.from({ length: 20 }, (_, i) => JSON.stringify({ id: i, input: { tag: `s${i}`, n: 1000 + pauseMs }, expected: 2 * (1000 + pauseMs) })).join('\n')}\n`,
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'exec',
      WORKFLOW,
      '--tools',
      TOOLS,
      '--inputs',
      inputs,
      '--out',
      out,
      '--home',
      home,
      '--concurrency',
      '2',
    ],
    { env: { ...process.env, WEFT_TEST_CALLS: calls }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, calls, out, exit, output: () => ({ stdout, stderr }) };
}

describe('weft exec --inputs stopped by a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal}: running cases finish, exit 130 with the resume command; the resume runs only the rest`, async () => {
      const home = join(scratch, signal);
      const run = start(home, 300);
      await until(() => lines(run.out) >= 3, 'three results');
      run.child.kill(signal);
      const exit = await run.exit;
      expect(exit.code).toBe(130);
      const { stderr } = run.output();
      const batchId = /resume with: weft exec --resume (\S+)/.exec(stderr)?.[1];
      expect(batchId, stderr).toBeDefined();
      const finished = lines(run.out);
      expect(finished).toBeLessThan(20);
      // Drained, not cut: every case that called its tool has its result.
      expect(callCounts(run.calls).size).toBe(finished);
      const resumed = await cli(['exec', '--resume', batchId as string, '--home', home, '--json'], {
        WEFT_TEST_CALLS: run.calls,
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ cases: 20, passed: 20 });
      const counts = callCounts(run.calls);
      expect(counts.size).toBe(20);
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
    });
  }

  it('kill -9 mid-case: the resume reports the running cases interrupted and does not run them again', async () => {
    const home = join(scratch, 'kill');
    const run = start(home, 2000);
    await until(() => lines(run.out) >= 2, 'two results');
    run.child.kill('SIGKILL');
    await run.exit;
    const before = callCounts(run.calls);
    const [batch] = await homeBatches(home);
    const batchId = batch?.batchId as string;
    const log = await batchLog(home, batchId);
    expect(log.some((record) => record.type === 'case-start')).toBe(true);
    // Results the kill caught before they were written count as interrupted too: never run again either way.
    const done = log.filter((record) => record.type === 'case-end').length;
    const resumed = await cli(['exec', '--resume', batchId, '--home', home, '--json'], { WEFT_TEST_CALLS: run.calls });
    const summary = JSON.parse(resumed.stdout) as {
      passed: number;
      errors: number;
      results: { error?: { code: string } }[];
    };
    const interrupted = summary.results.filter((entry) => entry.error?.code === 'INTERRUPTED').length;
    expect(interrupted).toBe(before.size - done);
    expect(interrupted).toBeGreaterThan(0);
    expect(summary.passed + summary.errors).toBe(20);
    expect([...callCounts(run.calls).values()].every((count) => count === 1)).toBe(true);
  });
});
