/** `weft workflow check` and `weft exec` (issue 14, first part), through the CLI's main in-process. */
import { describe, expect, it } from 'vitest';
import { cli } from './cli-harness.js';

const DIR = 'test/fixtures/workflows';

describe('weft workflow check', () => {
  it('says ok for a good workflow and locates every problem of a broken one (exit 2)', async () => {
    const ok = await cli(['workflow', 'check', `${DIR}/sum-to-n.workflow.json`, '--tools', `${DIR}/tools.yaml`]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('sum-to-n.workflow.json: ok');
    const broken = await cli([
      'workflow',
      'check',
      `${DIR}/broken.workflow.yaml`,
      '--tools',
      `${DIR}/tools.yaml`,
      '--json',
    ]);
    expect(broken.code).toBe(2);
    const document = JSON.parse(broken.stdout) as {
      ok: boolean;
      problems: { line: number | null; path: string; message: string }[];
    };
    expect(document.ok).toBe(false);
    const find = (text: string) => document.problems.find((problem) => problem.message.includes(text));
    expect(find('unknown tool "subtract"')).toMatchObject({ line: 4, path: 'nodes[1].tool' });
    expect(find('JSONata syntax error')).toMatchObject({ line: 4, path: 'nodes[1].args.a' });
    expect(find('vars.total is never assigned')).toMatchObject({ line: 5 });
    expect(find('"lost" cannot be reached')).toMatchObject({ line: 6 });
  });
});

describe('weft exec', () => {
  it('runs a workflow on one input with no model', async () => {
    const result = await cli([
      'exec',
      `${DIR}/sum-to-n.workflow.json`,
      '--tools',
      `${DIR}/tools.yaml`,
      '--input',
      '{"n":4}',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ output: 10, steps: 16, toolCalls: 4, llmCalls: 0 });
  });

  it('refuses input that breaks the inputs schema, and a broken workflow, with exit 2', async () => {
    const bad = await cli([
      'exec',
      `${DIR}/sum-to-n.workflow.json`,
      '--tools',
      `${DIR}/tools.yaml`,
      '--input',
      '{"n":-1}',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('input');
    const notJson = await cli(['exec', `${DIR}/sum-to-n.workflow.json`, '--input', '{n:']);
    expect(notJson.code).toBe(2);
    const broken = await cli(['exec', `${DIR}/broken.workflow.yaml`, '--tools', `${DIR}/tools.yaml`]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.workflow\.yaml:4:\d+/);
  });
});
