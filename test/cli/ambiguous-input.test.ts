/**
 * Input that cannot mean what it says is refused with exit 2, not silently read one way: a task together with
 * `--plan` (the plan carries its own task), and a predictions file with no predictions in it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempHome } from './cli-harness.js';

const PLAN = { task: "the plan's task", subtasks: [{ id: 'a', objective: 'do a', agent: 'w', dependsOn: [] }] };

describe('weft run <task> --plan <file>', () => {
  it('is refused, naming both, and records no run', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.json');
    writeFileSync(plan, JSON.stringify(PLAN));
    const result = await cli([
      'run',
      'another task',
      '--plan',
      plan,
      '--model',
      'sim:seed=1',
      '--home',
      home,
      '--json',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("the plan's task");
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT', location: { field: '<task>' } } });
    expect(JSON.parse((await cli(['runs', '--home', home, '--json'])).stdout)).toEqual({ runs: [] });
  });

  it("with only --plan runs the plan's task", async () => {
    const home = tempHome();
    const plan = join(home, 'plan.json');
    writeFileSync(plan, JSON.stringify(PLAN));
    expect((await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home])).code).toBe(0);
    const { runs } = JSON.parse((await cli(['runs', '--home', home, '--json'])).stdout) as { runs: { task: string }[] };
    expect(runs.map((run) => run.task)).toEqual(["the plan's task"]);
  });
});

describe('weft eval with no predictions', () => {
  const ANSWER = 'Node:\n1: open the file\n2: count the words\nEdge: (START,1) (1,2) (2,END)';
  const gold = (dir: string): string => {
    const file = join(dir, 'os.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          id: 'os_1',
          conversations: [
            { role: 'user', content: 'Task: count words' },
            { role: 'assistant', content: ANSWER },
          ],
        },
      ]),
    );
    return file;
  };

  it.each([
    ['an empty file', ''],
    ['blank lines only', '\n  \n\n'],
  ])('%s: "no predictions", exit 2', async (_name, content) => {
    const dir = tempHome();
    const predictions = join(dir, 'predictions.jsonl');
    writeFileSync(predictions, content);
    const result = await cli(['eval', predictions, '--gold', gold(dir), '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${predictions}: no predictions`);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT', location: { file: predictions } } });
  });

  it('one prediction is scored as before', async () => {
    const dir = tempHome();
    const predictions = join(dir, 'predictions.jsonl');
    writeFileSync(predictions, `${JSON.stringify({ id: 'os_1', output: ANSWER })}\n`);
    const result = await cli(['eval', predictions, '--gold', gold(dir), '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ count: 1, f1_chain: 1, f1_graph: 1 });
  });
});
