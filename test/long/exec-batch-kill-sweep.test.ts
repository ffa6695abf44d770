/**
 * `weft exec --inputs` killed with SIGKILL again and again (the first run and each resume), then resumed to the
 * end, in real child processes: no case starts twice, every case has exactly one result in the store's log and in
 * --out.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchLog, homeBatches } from '../cli/batch-store-harness.js';
import { cli } from '../cli/cli-harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'weft-exec-kill-sweep-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const CASES = 20_000;

/** Runs the command until its batch's log in the store has grown by `grow` records (or it ended), then kills it with SIGKILL. */
async function runAndKill(args: readonly string[], home: string, grow: number): Promise<void> {
  const records = async () => {
    if (!existsSync(join(home, 'weft.db'))) return 0;
    // Read while the child writes (WAL: readers never block it); a store still being created reads as empty.
    return homeBatches(home).then(
      (batches) => batches[0]?.records ?? 0,
      () => 0,
    );
  };
  const from = await records();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 1200 && child.exitCode === null; i++) {
    if ((await records()) >= from + grow) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill('SIGKILL');
  await exited;
}

describe('weft exec --inputs killed with SIGKILL at several points', () => {
  it('resumes to one start and one result per case, in the log and in --out', async () => {
    const workflow = join(scratch, 'double.workflow.json');
    writeFileSync(
      workflow,
      JSON.stringify({
        name: 'double',
        inputs: { n: { type: 'integer' } },
        nodes: [
          { id: 'start', kind: 'start' },
          { id: 'end', kind: 'end', output: '{% inputs.n * 2 %}' },
        ],
        edges: [{ from: 'start', to: 'end' }],
      }),
    );
    const inputs = join(scratch, 'cases.jsonl');
    writeFileSync(
      inputs,
      `${Array.from({ length: CASES }, (_, n) => JSON.stringify({ id: n, input: { n }, expected: 2 * n })).join('\n')}\n`,
    );
    const home = join(scratch, 'home');
    const out = join(scratch, 'out.jsonl');
    await runAndKill(['exec', workflow, '--inputs', inputs, '--out', out, '--home', home], home, 2_000);
    const batchId = (await homeBatches(home))[0]?.batchId as string;
    for (const grow of [1_000, 3_000, 200]) await runAndKill(['exec', '--resume', batchId, '--home', home], home, grow);
    const last = await cli(['exec', '--resume', batchId, '--home', home, '--json']);
    const summary = JSON.parse(last.stdout) as { cases: number; passed: number; errors: number };
    expect(summary.cases).toBe(CASES);
    expect(summary.passed + summary.errors).toBe(CASES);
    const starts = new Map<string | number, number>();
    const results = new Map<string | number, number>();
    for (const record of await batchLog(home, batchId)) {
      const counts = record.type === 'case-start' ? starts : results;
      counts.set(record.id, (counts.get(record.id) ?? 0) + 1);
    }
    expect(results.size).toBe(CASES);
    expect([...results.values()].every((count) => count === 1)).toBe(true);
    expect([...starts.values()].every((count) => count === 1)).toBe(true);
    // Every case that has a result other than INTERRUPTED was started once.
    expect(starts.size).toBeGreaterThanOrEqual(summary.passed);
    const listed = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: number }).id);
    expect(listed).toHaveLength(CASES);
    expect(new Set(listed).size).toBe(CASES);
  }, 300_000);
});
