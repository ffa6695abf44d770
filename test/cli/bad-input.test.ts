import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempHome } from './cli-harness.js';

/** No provider may be found from the test machine's environment. */
const NO_PROVIDER = {
  WEFT_MODEL: undefined,
  OPENAI_API_KEY: undefined,
  ANTHROPIC_API_KEY: undefined,
  OLLAMA_HOST: 'http://127.0.0.1:9',
};

describe('bad input exits with code 2 and a located message', () => {
  it('an unreadable task file', async () => {
    const home = tempHome();
    const missing = join(home, 'nope.md');
    const result = await cli(['run', missing, '--model', 'sim:seed=1', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(missing);
    expect(result.stderr).toMatch(/Cannot read task file/);
  });

  it('a task file without read permission', async (context) => {
    // Root reads any file, so there is nothing to refuse: a real skip, with its reason.
    if (process.getuid?.() === 0) context.skip('running as root, which can read any file');
    const home = tempHome();
    const file = join(home, 'task.md');
    writeFileSync(file, 'do it');
    chmodSync(file, 0o000);
    const result = await cli(['run', file, '--model', 'sim:seed=1', '--home', home]);
    expect(result.code).toBe(2);
  });

  it('a malformed plan JSON, with line and column', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.json');
    writeFileSync(
      plan,
      '{\n  "task": "x",\n  "subtasks": [\n    { "id": "a", "objective": "do a" "agent": "w" }\n  ]\n}\n',
    );
    const result = await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home, '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${plan}:4`);
    const document = JSON.parse(result.stdout) as { error: { code: string; issues: { line: number }[] } };
    expect(document.error.code).toBe('PLAN_INVALID');
    expect(document.error.issues[0]!.line).toBe(4);
  });

  it('a cyclic plan, naming the cycle', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.json');
    writeFileSync(
      plan,
      JSON.stringify(
        {
          task: 'loop',
          subtasks: [
            { id: 'a', objective: 'a', agent: 'w', dependsOn: ['c'] },
            { id: 'b', objective: 'b', agent: 'w', dependsOn: ['a'] },
            { id: 'c', objective: 'c', agent: 'w', dependsOn: ['b'] },
          ],
        },
        null,
        2,
      ),
    );
    const result = await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cycle/i);
    expect(result.stderr).toMatch(/a -> b -> c -> a|b -> c -> a -> b|c -> a -> b -> c/);
  });

  it('an unknown model spec, listing the valid forms', async () => {
    const home = tempHome();
    const result = await cli(['plan', 'write a poem about rivers', '--model', 'gpt4:turbo', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/openai:<model>/);
  });

  it('a missing API key, naming the variable', async () => {
    const home = tempHome();
    const result = await cli(['plan', 'write a poem about rivers', '--model', 'openai:gpt-4o-mini', '--home', home], {
      OPENAI_API_KEY: undefined,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('OPENAI_API_KEY');
  });

  it('no model configured anywhere, saying how to configure each', async () => {
    const home = tempHome();
    const result = await cli(['plan', 'write a poem about rivers', '--home', home], NO_PROVIDER);
    expect(result.code).toBe(2);
    for (const hint of ['--model', 'WEFT_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'config.yaml'])
      expect(result.stderr).toContain(hint);
  });

  it.each([
    ['--concurrency', 'many'],
    ['--max-calls', '1.5'],
    ['--max-cost', 'ten'],
    ['--timeout', '-3'],
    ['--inject-mask', '2'],
    ['--candidates', '0'],
  ])('a bad numeric flag %s %s', async (flag, value) => {
    const home = tempHome();
    const result = await cli([
      'run',
      'write a poem about rivers',
      '--model',
      'sim:seed=1',
      '--home',
      home,
      flag,
      value,
      '--json',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(flag);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT', location: { field: flag } } });
  });

  it.each([
    [['--check', 'true', '--check-timeout', '0'], '--check-timeout'],
    [['--check-timeout', '5'], '--check-timeout'],
    [['--check', '  '], '--check'],
    [['--judge-model', ''], '--judge-model'],
  ])('a bad task check %j', async (flags, field) => {
    const home = tempHome();
    const result = await cli(['run', 'write a poem', '--model', 'sim:seed=1', '--home', home, ...flags, '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'BAD_INPUT', location: { field } } });
  });

  it('an unknown option', async () => {
    const result = await cli(['run', 'x y', '--frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option/);
  });

  it('an invalid config file, with file, line and field', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.yaml'), 'model: sim:seed=1\nretries: many\n');
    const result = await cli(['runs', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(home, 'config.yaml')}:2`);
    expect(result.stderr).toContain('retries');
  });

  it('an unknown run id', async () => {
    const home = tempHome();
    const result = await cli(['show', '20200101-000000-dead', '--home', home]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No run "20200101-000000-dead"/);
  });
});

describe('the commands, end to end with the sim model', () => {
  it('run --json prints exactly the docs/contracts.md document and show --json agrees', async () => {
    const home = tempHome();
    const run = await cli([
      'run',
      'write a short story in four parts',
      '--model',
      'sim:seed=4,tasks=5',
      '--home',
      home,
      '--json',
    ]);
    expect(run.code).toBe(0);
    const document = JSON.parse(run.stdout) as Record<string, unknown> & {
      runId: string;
      tasks: Record<string, unknown>[];
    };
    // The docs/contracts.md fields, plus the ones added since (where the outputs and the result are).
    expect(Object.keys(document).sort()).toEqual([
      'artifactsDir',
      'calls',
      'costUsd',
      'makespanMs',
      'outputsDir',
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
    expect(document.status).toBe('completed');
    expect(document.tasks).toHaveLength(5);
    expect(Object.keys(document.tasks[0]!).sort()).toEqual([
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
    const show = await cli(['show', document.runId, '--home', home, '--json']);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toEqual(document);
    const runs = await cli(['runs', '--home', home, '--json']);
    expect(JSON.parse(runs.stdout)).toMatchObject({
      runs: [{ runId: document.runId, status: 'completed', task: 'write a short story in four parts' }],
    });
    const mermaid = await cli(['show', document.runId, '--home', home, '--mermaid']);
    expect(mermaid.stdout).toMatch(/^flowchart TD/);
  });

  it('plan --json shows every candidate with its metrics and the chosen plan', async () => {
    const home = tempHome();
    const result = await cli([
      'plan',
      'plan a conference',
      '--model',
      'sim:seed=9',
      '--candidates',
      '4',
      '--home',
      home,
      '--json',
    ]);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      candidates: { parallelism: number; dependencyComplexity: number }[];
      chosen: number;
      calls: number;
    };
    expect(document.candidates).toHaveLength(4);
    expect(document.calls).toBe(4);
    const best = Math.max(...document.candidates.map((c) => c.parallelism));
    expect(document.candidates[document.chosen]!.parallelism).toBe(best);
  });

  it('a failed run exits 1', async () => {
    const home = tempHome();
    const result = await cli([
      'run',
      'write a short story in four parts',
      '--model',
      'sim:seed=4,fail=1',
      '--strategy',
      'none',
      '--home',
      home,
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'failed' });
  });
});
