/**
 * Hostile nesting (a 176 KB file of `[[[[…` or `- - - …`) is bad input: exit 2 with the file, the line and the
 * depth limit, never INTERNAL, a stack trace or "Maximum call stack size exceeded" — for plan, team and config
 * files alike, in YAML and JSON.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH } from '../../src/text/nesting-depth.js';
import { cli, tempHome } from './cli-harness.js';

const DEPTH = 88_000; // 176 KB of brackets

interface ErrorDocument {
  error: { code: string; message: string; issues?: { file?: string; line?: number; message: string }[] };
}

function expectNestingRefused(
  result: { code: number; stdout: string; stderr: string },
  file: string,
  line: number,
): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).not.toMatch(/call stack|RangeError|\n\s+at /);
  expect(result.stderr).toContain(`${file}:${line}:`);
  expect(result.stderr).toContain(`nested deeper than ${MAX_NESTING_DEPTH} levels`);
  const document = JSON.parse(result.stdout) as ErrorDocument;
  expect(document.error.code).not.toBe('INTERNAL');
}

describe('deeply nested input files', () => {
  it.each([
    ['flow brackets', 'plan.yaml', `task: t\nsubtasks: ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}\n`, 2],
    ['compact block sequences', 'plan.yaml', `task: t\nsubtasks:\n  ${'- '.repeat(DEPTH)}1\n`, 3],
    ['JSON arrays', 'plan.json', `{"task": "t",\n "subtasks": ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`, 2],
    [
      'JSON objects',
      'plan.json',
      `{"task": "t",\n "subtasks": ${'{"a": '.repeat(DEPTH / 4)}1${'}'.repeat(DEPTH / 4)}}`,
      2,
    ],
  ])('a plan file of %s', async (_name, fileName, text, line) => {
    const home = tempHome();
    const plan = join(home, fileName);
    writeFileSync(plan, text);
    expectNestingRefused(
      await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home, '--json']),
      plan,
      line,
    );
  });

  it('a team file', async () => {
    const home = tempHome();
    const team = join(home, 'team.yaml');
    writeFileSync(team, `name: deep\nagents:\n  - name: a\n    prompt: ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}\n`);
    expectNestingRefused(
      await cli(['team', 'What is 6 x 7?', '--team', team, '--model', 'sim:seed=1', '--home', home, '--json']),
      team,
      4,
    );
  });

  it('a config file', async () => {
    const home = tempHome();
    const config = join(home, 'config.yaml');
    writeFileSync(config, `model: sim:seed=1\nprices: ${'{a: '.repeat(DEPTH / 4)}1${'}'.repeat(DEPTH / 4)}\n`);
    expectNestingRefused(await cli(['runs', '--home', home, '--json']), config, 2);
  });

  it('still reads nesting up to the limit', async () => {
    const home = tempHome();
    const plan = join(home, 'plan.yaml');
    const deep = MAX_NESTING_DEPTH - 3; // the plan's map, the subtasks list and a subtask hold the value
    writeFileSync(
      plan,
      `task: t\nsubtasks:\n  - id: a\n    objective: ${'['.repeat(deep)}${']'.repeat(deep)}\n    agent: w\n`,
    );
    const result = await cli(['run', '--plan', plan, '--model', 'sim:seed=1', '--home', home, '--json']);
    expect(result.code).toBe(2);
    // The plan is read; what is wrong is the objective's type, not its depth.
    expect(result.stderr).toContain(`${plan}:4:5 subtasks[0].objective: expected a string`);
  });
});
