import { describe, expect, it } from 'vitest';
import { parseWorkflowText } from '../../src/eval/parse-workflow-text.js';
import { WORFBENCH_PLANNING_NOTE } from '../../src/eval/plan-as-workflow-text.js';
import { cli, tempHome } from './cli-harness.js';

const TASK = 'Plan a three-day trip to Lisbon with museums and food';

describe('weft plan --format', () => {
  it('worfbench prints only the node chain and edges on stdout, which parse back; the summary goes to stderr', async () => {
    const home = tempHome();
    const result = await cli([
      'plan',
      TASK,
      '--model',
      'sim:seed=4,tasks=6',
      '--candidates',
      '2',
      '--format',
      'worfbench',
      '--home',
      home,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('Node:\n1: ')).toBe(true);
    const parsed = parseWorkflowText(result.stdout);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.skipped).toEqual([]);
    expect(parsed.workflow.nodes).toHaveLength(6);
    expect(result.stderr).toContain('sim model');
    expect(result.stderr).toMatch(/chose candidate #[12] of 2/);
    expect(result.stderr).toContain('2 calls');
  });

  it('with --json adds a worfbench field that matches the chosen plan, node for node', async () => {
    const home = tempHome();
    const result = await cli([
      'plan',
      TASK,
      '--model',
      'sim:seed=4',
      '--format',
      'worfbench',
      '--json',
      '--home',
      home,
    ]);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      worfbench: string;
      modelKind: string;
      calls: number;
      plan: { task: string; subtasks: { id: string; objective: string; dependsOn: string[] }[] };
    };
    expect(document.modelKind).toBe('sim');
    expect(document.calls).toBe(3);
    const parsed = parseWorkflowText(document.worfbench);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { nodes, edges } = parsed.workflow;
    expect([...nodes].sort()).toEqual(document.plan.subtasks.map((subtask) => subtask.objective).sort());
    // Every dependency of the plan is an edge between the matching nodes, and nothing else links two nodes.
    const numberOf = new Map(
      document.plan.subtasks.map((subtask) => [subtask.id, nodes.indexOf(subtask.objective) + 1]),
    );
    const expected = document.plan.subtasks.flatMap((subtask) =>
      subtask.dependsOn.map((parent) => `${numberOf.get(parent)}>${numberOf.get(subtask.id)}`),
    );
    const written = edges
      .filter(([from, to]) => typeof from === 'number' && typeof to === 'number')
      .map(([from, to]) => `${from}>${to}`);
    expect(written.sort()).toEqual(expected.sort());
    // The planner was asked for WorfBench's granularity.
    expect(document.plan.task).toContain(TASK);
    expect(document.plan.task).toContain(WORFBENCH_PLANNING_NOTE);
  });

  it('json prints the chosen plan, a file `weft run --plan` reads', async () => {
    const home = tempHome();
    const result = await cli(['plan', TASK, '--model', 'sim:seed=4', '--format', 'json', '--home', home]);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout) as { task: string; subtasks: unknown[] };
    expect(plan.task).toBe(TASK);
    expect(plan.subtasks.length).toBeGreaterThan(0);
  });

  it('text (the default) keeps the table, without a worfbench field under --json', async () => {
    const home = tempHome();
    const text = await cli(['plan', TASK, '--model', 'sim:seed=4', '--home', home]);
    expect(text.stdout).toContain('candidate  subtasks');
    const json = await cli(['plan', TASK, '--model', 'sim:seed=4', '--json', '--home', home]);
    expect(JSON.parse(json.stdout)).not.toHaveProperty('worfbench');
  });

  it('an unknown format exits 2 naming --format', async () => {
    const result = await cli([
      'plan',
      TASK,
      '--model',
      'sim:seed=4',
      '--format',
      'yaml',
      '--json',
      '--home',
      tempHome(),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--format');
    expect((JSON.parse(result.stdout) as { error: { location: { field: string } } }).error.location.field).toBe(
      '--format',
    );
  });
});
