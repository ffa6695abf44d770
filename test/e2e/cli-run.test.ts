/**
 * The CLI end to end, in a child process exactly as a user runs it:
 *   weft run examples/gobang/task.md --model scripted:examples/gobang/replies.json --home <tmp> --json
 * stdout must be exactly one JSON document of the docs/contracts.md `weft run --json` shape, and the exit code 0.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDocument as document, weft, type CliResult, type TaskJson } from './weft-cli.js';

let home: string;
let runResult: CliResult;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'weft-cli-'));
  runResult = await weft([
    'run',
    'examples/gobang/task.md',
    '--model',
    'scripted:examples/gobang/replies.json',
    '--home',
    home,
    '--json',
  ]);
}, 90_000);

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('weft run --json (scripted Gobang)', () => {
  it('exits 0 and prints exactly one JSON document of the contract shape', () => {
    const run = document(runResult);
    expect(runResult.code, runResult.stderr).toBe(0);
    // The docs/contracts.md fields, plus where the outputs are and the run's result (added, never renamed).
    expect(Object.keys(run).sort()).toEqual([
      'artifactsDir',
      'calls',
      'costUsd',
      'makespanMs',
      'outputsDir',
      // Present because the plan changed once (docs/algorithms.md#changed-ratio).
      'planChanges',
      'planVersion',
      'reportFile',
      'result',
      'runDir',
      'runId',
      'status',
      'tasks',
      'tokens',
      'toolCalls',
      'toolCallsFailed',
    ]);
    expect(run.status).toBe('completed');
    expect(run.planVersion).toBe(2);
    expect(Object.keys(run.planChanges as object).sort()).toEqual([
      'changedRatio',
      'changedSubtasks',
      'initialSubtasks',
      'meanUpdateRatio',
    ]);
    const changes = run.planChanges as { changedRatio: number; changedSubtasks: number; initialSubtasks: number };
    expect(changes.changedRatio).toBe(changes.changedSubtasks / changes.initialSubtasks);
    expect(run.runId).toEqual(expect.any(String));
    expect(run.makespanMs).toEqual(expect.any(Number));
    expect(run.calls).toBe(20);
    expect(Object.keys(run.tokens as object).sort()).toEqual(['input', 'output']);
    const tokens = run.tokens as { input: number; output: number };
    expect(tokens.input).toBeGreaterThan(0);
    expect(tokens.output).toBeGreaterThan(0);
    expect(run.costUsd).toEqual(expect.any(Number));
    expect(run.costUsd).toBeGreaterThanOrEqual(0);
  });

  it('lists every subtask with its attempts, times and dependencies', () => {
    const tasks = document(runResult).tasks as TaskJson[];
    for (const task of tasks) {
      expect(Object.keys(task).sort(), task.id).toEqual([
        'attempts',
        'dependsOn',
        'endMs',
        'id',
        'output',
        'outputFile',
        'startMs',
        'status',
        'toolCalls',
        'toolCallsFailed',
      ]);
      expect(task.status, task.id).toBe('completed');
      expect(task.startMs, task.id).toEqual(expect.any(Number));
      expect(task.endMs, task.id).toBeGreaterThanOrEqual(task.startMs ?? Number.POSITIVE_INFINITY);
    }
    const byId = new Map(tasks.map((task) => [task.id, task]));
    expect([...byId.keys()].sort()).toEqual(['t1', 't2', 't3', 't4', 't5', 't6']);
    expect(tasks.map((task) => [task.id, task.attempts])).toEqual(
      expect.arrayContaining([
        ['t1', 1],
        ['t2', 1],
        ['t3', 2],
        ['t4', 1],
        ['t5', 1],
        ['t6', 1],
      ]),
    );
    expect(byId.get('t5')?.dependsOn).toEqual(['t3', 't4']);
    expect(byId.get('t6')?.dependsOn).toEqual(['t3']);
    // A subtask starts only after its parents finished.
    for (const task of tasks) {
      for (const parent of task.dependsOn) {
        expect(task.startMs, `${task.id} after ${parent}`).toBeGreaterThanOrEqual(
          byId.get(parent)?.endMs ?? Number.POSITIVE_INFINITY,
        );
      }
    }
  });

  it('leaves the game files and the report in the run directory', () => {
    const runDir = join(home, 'runs', String(document(runResult).runId));
    for (const file of ['index.html', 'style.css', 'game.js', 'rules.js', 'ai.js']) {
      expect(existsSync(join(runDir, 'artifacts', file)), file).toBe(true);
    }
    for (const file of ['report.md', 'plan-v1.json', 'plan-v2.json'])
      expect(existsSync(join(runDir, file)), file).toBe(true);
  });

  it('is shown again, identically, by weft show --json and listed by weft runs --json', async () => {
    const run = document(runResult);
    const shown = await weft(['show', String(run.runId), '--home', home, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(document(shown)).toEqual(run);

    const listed = await weft(['runs', '--home', home, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const runs = (document(listed) as { runs: { runId: string; status: string }[] }).runs;
    expect(runs).toEqual([expect.objectContaining({ runId: run.runId, status: 'completed' })]);
  }, 60_000);
});
