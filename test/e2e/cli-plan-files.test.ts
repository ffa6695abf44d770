/**
 * The example plan files through the CLI with the `sim:` model: examples/plans/diamond.json runs, the cyclic one
 * is refused as bad input, and the fault-injection experiment of examples/sim-fault.md
 * (docs/algorithms.md#fault-injection) behaves as described: with every first result masked, a run without updates
 * fails and a run with updates completes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDocument, weft, type TaskJson } from './weft-cli.js';

let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-plans-'));
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

const runPlan = (plan: string, ...flags: string[]) =>
  weft(['run', '--plan', plan, '--model', 'sim:seed=3', '--home', home, '--json', ...flags]);

describe('examples/plans', () => {
  it('runs diamond.json without planning, in dependency order', async () => {
    const result = await runPlan('examples/plans/diamond.json');
    const run = jsonDocument(result);
    expect(result.code, result.stderr).toBe(0);
    expect(run.status).toBe('completed');
    expect(run.planVersion).toBe(1);
    const tasks = run.tasks as TaskJson[];
    expect(tasks.map((t) => [t.id, t.dependsOn])).toEqual([
      ['facts', []],
      ['text', ['facts']],
      ['figures', ['facts']],
      ['assemble', ['text', 'figures']],
    ]);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    for (const task of tasks) {
      for (const parent of task.dependsOn)
        expect(task.startMs ?? -1).toBeGreaterThanOrEqual(byId.get(parent)?.endMs ?? Infinity);
    }
  }, 60_000);

  it('refuses cyclic.json with exit code 2, naming the cycle, the file and the line', async () => {
    const json = await runPlan('examples/plans/cyclic.json');
    expect(json.code).toBe(2);
    const error = (
      jsonDocument(json) as { error: { code: string; issues?: { message: string; line?: number; file?: string }[] } }
    ).error;
    const cycle = error.issues?.find((issue) => /cycle/i.test(issue.message));
    expect(cycle?.file).toBe('examples/plans/cyclic.json');
    expect(cycle?.line).toEqual(expect.any(Number));
    for (const id of ['outline', 'draft', 'review']) expect(cycle?.message).toContain(id);

    const plain = await weft(['run', '--plan', 'examples/plans/cyclic.json', '--model', 'sim:seed=3', '--home', home]);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(/examples\/plans\/cyclic\.json:\d+/);
    expect(plain.stderr).toMatch(/cycle/i);
  }, 60_000);
});

describe('fault injection (examples/sim-fault.md)', () => {
  it('fails without updates when every first result is masked', async () => {
    const result = await runPlan(
      'examples/plans/diamond.json',
      '--inject-mask',
      '1',
      '--seed',
      '1',
      '--strategy',
      'none',
    );
    expect(result.code).toBe(1);
    const run = jsonDocument(result);
    expect(run.status).toBe('failed');
    expect(run.planVersion).toBe(1);
    const tasks = run.tasks as TaskJson[];
    expect(tasks.find((t) => t.id === 'facts')?.status).toBe('failed');
    expect(tasks.find((t) => t.id === 'assemble')?.attempts).toBe(0); // its inputs never arrived
  }, 60_000);

  it('completes with dynamic updates, rerunning each masked subtask once', async () => {
    const result = await runPlan('examples/plans/diamond.json', '--inject-mask', '1', '--seed', '1');
    expect(result.code, result.stderr).toBe(0);
    const run = jsonDocument(result);
    expect(run.status).toBe('completed');
    expect(run.planVersion as number).toBeGreaterThan(1);
    for (const task of run.tasks as TaskJson[]) {
      expect(task.status, task.id).toBe('completed');
      expect(task.attempts, task.id).toBe(2);
    }
  }, 60_000);
});
