/** `weft solve`, `weft traces` and `weft traces show` (the execute stage), through the CLI's main in-process. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { cli, tempHome } from './cli-harness.js';

const DIR = 'test/fixtures/workflows';
const REFERENCE = `${DIR}/sum-to-n.workflow.json`;

describe('weft solve', () => {
  it('solves with the sim following a reference, saves the trace, and lists and shows it', async () => {
    const home = tempHome();
    const solved = await cli([
      'solve',
      'Sum the numbers from 1 to n',
      '--tools',
      `${DIR}/tools.yaml`,
      '--input',
      '{"n":3}',
      '--model',
      `sim:reference=${REFERENCE}`,
      '--task-key',
      'sum_to_n',
      '--expected',
      '6',
      '--home',
      home,
      '--json',
    ]);
    expect(solved.code, solved.stderr).toBe(0);
    expect(solved.stderr).toContain('model simulated: not a real LLM');
    const document = JSON.parse(solved.stdout) as {
      traceId: string;
      success: boolean;
      answer: unknown;
      calls: { tool: string; args: unknown; result: unknown }[];
      usage: { calls: number };
    };
    expect(document).toMatchObject({ success: true, answer: 6, usage: { calls: 4 } });
    expect(document.calls.map((call) => [call.tool, call.args, call.result])).toEqual([
      ['add', { a: 0, b: 1 }, 1],
      ['add', { a: 1, b: 2 }, 3],
      ['add', { a: 3, b: 3 }, 6],
    ]);

    const failed = await cli([
      'solve',
      'Sum the numbers from 1 to n',
      '--tools',
      `${DIR}/tools.yaml`,
      '--input',
      '{"n":2}',
      '--model',
      `sim:reference=${REFERENCE}`,
      '--mode',
      'plan-execute',
      '--expected',
      '4',
      '--home',
      home,
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^trace t-[0-9a-f-]+: failed\nplan:\n {2}1\. Check vars\.i < inputs\.n/);
    expect(failed.stdout).toContain('  1. [step 1] add {"a":0,"b":1} → 1');
    expect(failed.stdout).toContain('answer: 3');
    expect(failed.stdout).toContain('error: the answer 3 is not the expected 4');

    const listed = await cli(['traces', '--home', home, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = (JSON.parse(listed.stdout) as { traces: Record<string, unknown>[] }).traces;
    expect(rows.map((row) => [row.mode, row.success, row.calls, row.taskKey])).toEqual([
      ['plan-execute', false, 2, null],
      ['react', true, 3, 'sum_to_n'],
    ]);
    expect(rows[1]?.traceId).toBe(document.traceId);
    const filtered = await cli(['traces', '--home', home, '--task', 'sum_to_n', '--success']);
    expect(filtered.stdout.trim().split('\n')).toHaveLength(1);
    expect(filtered.stdout).toContain(`${document.traceId}  `);
    expect(filtered.stdout).toContain('sum_to_n');
    expect((await cli(['traces', '--home', home, '--limit', '1', '--json'])).stdout).not.toContain(document.traceId);

    const shown = await cli(['traces', 'show', document.traceId, '--home', home]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`trace ${document.traceId}: success — Sum the numbers from 1 to n`);
    expect(shown.stdout).toMatch(
      /mode react, model sim:.*reference=test\/fixtures\/workflows\/sum-to-n.workflow.json, task key sum_to_n, created /,
    );
    expect(shown.stdout).toContain('input: {"n":3}');
    expect(shown.stdout).toContain('  3. add {"a":3,"b":3} → 6');
    expect(shown.stdout).toContain('expected: 6');
    const shownJson = JSON.parse((await cli(['traces', 'show', document.traceId, '--home', home, '--json'])).stdout);
    expect(shownJson).toMatchObject({ traceId: document.traceId, answer: 6, createdAt: expect.any(String) });

    // Traces are not runs.
    const runs = await cli(['runs', '--home', home, '--json']);
    expect(runs.stdout).not.toContain('t-');
  });

  it('answers a scripted model with exact replies; the trace clips long results when shown', async () => {
    const home = tempHome();
    const script = join(home, 'replies.json');
    writeFileSync(
      script,
      JSON.stringify({
        replies: [
          { toolCalls: [{ name: 'add', args: { a: 2, b: 40 } }] },
          { text: `The answer is:\n\`\`\`json\n{"sum": 42, "note": "${'x'.repeat(500)}"}\n\`\`\`` },
        ],
      }),
    );
    const solved = await cli(
      ['solve', 'Add two numbers', '--tools', `${DIR}/tools.yaml`, '--input', '{}', '--model', `scripted:${script}`],
      { WEFT_HOME: home },
    );
    expect(solved.code, solved.stderr).toBe(0);
    expect(solved.stdout).toContain('  1. add {"a":2,"b":40} → 42');
    expect(solved.stdout).toMatch(/answer: \{"sum":42,"note":"x+/);
    const id = /trace (t-[0-9a-f-]+)/.exec(solved.stdout)?.[1] as string;
    const store = openSqliteRunStore(join(home, 'weft.db'));
    expect((await store.getTrace(id))?.answer).toEqual({ sum: 42, note: 'x'.repeat(500) });
    await store.close();
  });

  it('refuses bad input with exit 2 before any model is made', async () => {
    const home = tempHome();
    const base = ['solve', 'T', '--tools', `${DIR}/tools.yaml`, '--model', 'sim:', '--home', home];
    const cases: [string[], string][] = [
      [['--input', '{n:'], '--input is not JSON'],
      [['--input', '[1]'], '--input must be a JSON object'],
      [['--input', '{}', '--mode', 'magic'], '--mode must be one of react, plan-execute'],
      [['--input', '{}', '--max-steps', '0'], '--max-steps expects an integer >= 1'],
      [['--input', '{}', '--expected', 'nope'], '--expected is not JSON'],
      [[], '--input is required'],
    ];
    for (const [extra, message] of cases) {
      const result = await cli([...base, ...extra]);
      expect({ code: result.code, message: result.stderr.includes(message) }).toEqual({ code: 2, message: true });
    }
    const noTools = await cli(['solve', 'T', '--input', '{}', '--model', 'sim:', '--home', home]);
    expect(noTools.code).toBe(2);
    expect(noTools.stderr).toContain('--tools is required');
    const badReference = await cli([
      ...base.slice(0, 5),
      'sim:reference=test/fixtures/workflows/broken.workflow.yaml',
      '--home',
      home,
      '--input',
      '{}',
    ]);
    expect(badReference.code).toBe(2);
    expect(badReference.stderr).toContain('broken.workflow.yaml:');
  });
});

describe('weft traces', () => {
  it('says there are none in a fresh home, and refuses a bad or unknown trace id', async () => {
    const home = tempHome();
    expect((await cli(['traces', '--home', home])).stdout).toContain('no traces in');
    expect(JSON.parse((await cli(['traces', '--home', home, '--json'])).stdout)).toEqual({ traces: [] });
    const bad = await cli(['traces', 'show', '\u001b[2Jt-1', '--home', home]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a trace id');
    expect(bad.stderr).not.toContain('\u001b');
    const unknown = await cli(['traces', 'show', 't-20260101-000000-00000000', '--home', home]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No trace "t-20260101-000000-00000000"');
    expect((await cli(['traces', '--home', home, '--limit', '0'])).code).toBe(2);
  });
});
