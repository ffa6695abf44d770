/**
 * The example plan files through the CLI with the `sim:` model: examples/plans/diamond.json runs, the cyclic one
 * is refused as bad input, and the fault-injection experiment of examples/sim-fault.md
 * (docs/algorithms.md#fault-injection) behaves as described: with every first result masked, a run without updates
 * fails its task check and a run with reviews passes it.
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
  // Task success is judged by a check of the run's outputs, apart from the run's verifier.
  const check = ['--check', `node ${join(process.cwd(), 'examples/sim-fault-check.mjs')}`];

  it('without updates, every subtask is accepted and the task still fails its check', async () => {
    const result = await runPlan(
      'examples/plans/diamond.json',
      '--inject-mask',
      '1',
      '--seed',
      '1',
      '--strategy',
      'none',
      ...check,
    );
    expect(result.code, result.stderr).toBe(0);
    const run = jsonDocument(result);
    // The verifier judged what each agent produced; the children were handed "none".
    expect(run.status).toBe('completed');
    expect(run.planVersion).toBe(1);
    expect(run.planChanges).toBeUndefined();
    const taskCheck = run.taskCheck as {
      passed: boolean;
      checks: { method: string; exitCode: number; detail: string }[];
    };
    expect(taskCheck.passed).toBe(false);
    expect(taskCheck.checks[0]).toMatchObject({ method: 'command', exitCode: 1 });
    expect(taskCheck.checks[0]!.detail).toMatch(/broken: .*assemble\.md/);
    const tasks = run.tasks as TaskJson[];
    // P = 1 masks every first result, and nothing runs a second time.
    for (const task of tasks as (TaskJson & { output: string | null })[])
      expect([task.id, task.attempts, task.output]).toEqual([task.id, 1, 'none']);
  }, 60_000);

  it('with reviews, each masked subtask and what read it runs again, and the task passes its check', async () => {
    const result = await runPlan(
      'examples/plans/diamond.json',
      '--inject-mask',
      '1',
      '--seed',
      '1',
      '--strategy',
      'after-completion',
      ...check,
    );
    expect(result.code, result.stderr).toBe(0);
    const run = jsonDocument(result);
    expect(run.status).toBe('completed');
    expect(run.planVersion as number).toBeGreaterThan(1);
    expect((run.taskCheck as { passed: boolean }).passed).toBe(true);
    for (const task of run.tasks as TaskJson[]) {
      expect(task.status, task.id).toBe('completed');
      expect(task.attempts, task.id).toBe(2);
    }
    // Every subtask of the first plan was revised once: the changed ratio is 1 over the run.
    expect(run.planChanges).toMatchObject({ initialSubtasks: 4, changedSubtasks: 4, changedRatio: 1 });
    const shown = await weft(['show', run.runId as string, '--history', '--home', home]);
    expect(shown.stdout).toMatch(/changed ratio \d+ %/);
    expect(shown.stdout).toMatch(/changed: 4 of the 4 initial subtasks \(100 %\)/);
    const plain = await weft(['show', run.runId as string, '--home', home]);
    expect(plain.stdout).toMatch(/plan changed: 4 of 4 initial subtasks \(changed ratio 100 %\)/);
    expect(plain.stdout).toMatch(/task check \(command node .*sim-fault-check\.mjs\): passed — 4 outputs sound/);
  }, 60_000);
});
