/**
 * `--max-calls`, `--max-tokens`, `--max-cost` and `--timeout` on the commands of every engine but the dialog one
 * (its chat, simulate and dialog eval are in conversation-budgets.test.ts): `weft run`, `weft team` (and `team eval`),
 * `weft solve`, `weft distill`, `weft distill eval` and `weft bench worfbench`. A spent budget ends each with exit 1
 * and the located BUDGET error in its `--json` document, and what was done before the stop is kept.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOLD_DIR as GOLD } from '../eval/gold-path.js';
import { cli, tempHome } from './cli-harness.js';

interface BudgetError {
  code: string;
  message: string;
  location?: { field?: string };
}

const WORKFLOWS = 'test/fixtures/workflows';
const SUM_TO_N = `${WORKFLOWS}/sum-to-n.workflow.json`;

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const twoStepPlan = (home: string) =>
  write(
    home,
    'plan.json',
    JSON.stringify({
      task: 't',
      subtasks: [
        { id: 'a', objective: 'do a', agent: 'w', dependsOn: [] },
        { id: 'b', objective: 'do b', agent: 'w', dependsOn: ['a'] },
      ],
    }),
  );

/** Two sim agents that always agree: one layer of two calls answers a question. */
const agreeingTeam = (home: string, model = 'sim:accuracy=1') =>
  write(
    home,
    'team.yaml',
    `name: pair\nmodel: "${model},seed=3"\nagents:\n  - name: one\n    prompt: You are one.\n  - name: two\n    prompt: You are two.\n`,
  );

describe('budget flags on every engine: bad values', () => {
  it('each command refuses a bad budget value naming the flag, before anything runs', async () => {
    const home = tempHome();
    const team = agreeingTeam(home);
    const data = write(home, 'data.jsonl', `${JSON.stringify({ id: 1, question: 'One?', answer: 'correct' })}\n`);
    const commands = [
      ['team', 'What now?', '--team', team],
      ['team', 'eval', '--team', team, '--data', data],
      ['team', 'optimize', '--team', team, '--queries', data, '--k', '1'],
      ['solve', 'Sum to n', '--tools', `${WORKFLOWS}/tools.yaml`, '--input', '{"n":3}', '--model', 'sim:seed=1'],
      [
        'distill',
        '--traces',
        join(home, 'traces.json'),
        '--tools',
        `${WORKFLOWS}/tools.yaml`,
        '--out',
        join(home, 'w.json'),
      ],
      ['distill', 'eval', '--suite', 'examples/distill-suite', '--model', 'sim:seed=1'],
      ['bench', 'worfbench', '--data', GOLD, '--model', 'sim:seed=1'],
    ];
    for (const command of commands) {
      for (const [flag, value] of [
        ['--max-calls', '0'],
        ['--timeout', 'soon'],
      ] as const) {
        const result = await cli([...command, flag, value, '--home', home, '--json']);
        expect(result.code, `${command.slice(0, 2).join(' ')} ${flag}`).toBe(2);
        const document = JSON.parse(result.stdout) as { error: BudgetError };
        expect(document.error).toMatchObject({ code: 'BAD_INPUT', location: { field: flag } });
      }
    }
  });
});

describe('budget flags on every engine: a spent budget', () => {
  it('weft run: BUDGET in --json, the subtask done before the stop kept', async () => {
    const home = tempHome();
    const result = await cli([
      'run',
      '--plan',
      twoStepPlan(home),
      '--model',
      'sim:seed=1',
      '--home',
      home,
      '--max-calls',
      '2',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as {
      runId: string;
      status: string;
      calls: number;
      tasks: { id: string; status: string; output: unknown }[];
      error: BudgetError;
    };
    expect(document.error).toMatchObject({
      code: 'BUDGET',
      message: 'Budget exhausted: call budget of 2 reached',
      location: { field: '--max-calls' },
    });
    expect(document.status).toBe('failed');
    expect(document.calls).toBe(2);
    expect(document.tasks.find((task) => task.id === 'a')).toMatchObject({ status: 'completed' });
    expect(document.tasks.find((task) => task.id === 'a')?.output).toEqual(expect.any(String));
    // The run is in the store, as any failed run.
    const shown = await cli(['show', document.runId, '--home', home, '--json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ runId: document.runId, status: 'failed' });
  });

  it('weft resume: a resumed run that spends the rest of its budget ends with BUDGET, as weft run does', async () => {
    const home = tempHome();
    // Started (in the library, as `weft run` would) with a budget of 10 calls and cancelled after its 4th call: a
    // six-part story needs more than the rest.
    const { openRunStore } = await import('../../src/store/open-store.js');
    const { runTask } = await import('../../src/run/run-task.js');
    const { createModel } = await import('../../src/llm/resolve-model.js');
    const store = await openRunStore({ home });
    const controller = new AbortController();
    let calls = 0;
    const first = await runTask({
      task: 'write a short story in six parts',
      model: await createModel('sim:seed=8,tasks=6,latency=fixed(5)'),
      store,
      home,
      budget: { maxCalls: 10 },
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'model-call' && ++calls === 4) controller.abort();
      },
    }).result.finally(() => store.close());
    expect(first.status).toBe('cancelled');
    const result = await cli(['resume', first.runId, '--home', home, '--json']);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as { status: string; calls: number; error: BudgetError };
    expect(document.status).toBe('failed');
    expect(document.calls).toBe(10);
    expect(document.error).toMatchObject({
      code: 'BUDGET',
      message: 'Budget exhausted: call budget of 10 reached',
      location: { field: '--max-calls' },
    });
  });

  it('weft team: BUDGET with the answers given before the stop', async () => {
    const home = tempHome();
    const team = write(
      home,
      'team.yaml',
      'name: trio\nmodel: "sim:accuracy=1,seed=3"\nagents:\n' +
        [
          ['a', 1, 11],
          ['b', 0, 12],
          ['c', 0.5, 13],
        ]
          .map(
            ([name, accuracy, seed]) =>
              `  - name: ${name}\n    prompt: You are ${name}.\n    model: "sim:accuracy=${accuracy},seed=${seed}"`,
          )
          .join('\n'),
    );
    const result = await cli(['team', 'What now?', '--team', team, '--home', home, '--max-calls', '4', '--json']);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as {
      answer: unknown;
      calls: number;
      nodes: { step: number; agent: string; answer: string }[];
      budget: { usage: { calls: number }; stopped: { field: string } };
      error: BudgetError;
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-calls' } });
    expect(document.answer).toBeNull();
    expect(document.nodes).toHaveLength(4);
    expect(document.calls).toBe(4);
    expect(document.budget.usage.calls).toBe(4);
    expect(result.stderr).toContain('team stopped by the budget after 4 answers');
  });

  it('weft team --timeout: a call in flight at the deadline ends the command with BUDGET', async () => {
    const home = tempHome();
    // Every call takes a minute: only the deadline can end it.
    const team = agreeingTeam(home, 'sim:accuracy=1,latency=fixed(60000)');
    const result = await cli(['team', 'What now?', '--team', team, '--home', home, '--timeout', '0.2', '--json']);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as { nodes: unknown[]; error: BudgetError };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--timeout' } });
    expect(document.error.message).toContain('wall-time budget of 0.2s reached');
    expect(document.nodes).toEqual([]);
  });

  it('weft team eval: the items that finished are reported, the rest named as cut short', async () => {
    const home = tempHome();
    const team = agreeingTeam(home);
    const data = write(
      home,
      'data.jsonl',
      `${[1, 2, 3, 4, 5].map((i) => JSON.stringify({ id: `q${i}`, question: `Question ${i}?`, answer: 'correct' })).join('\n')}\n`,
    );
    const result = await cli([
      'team',
      'eval',
      '--team',
      team,
      '--data',
      data,
      '--concurrency',
      '1',
      '--home',
      home,
      '--max-calls',
      '5',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as {
      perItem: { id: string; correct: boolean }[];
      budget: { stopped: { finished: number; of: number; unfinished: string[] } };
      error: BudgetError;
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-calls' } });
    // Two calls an item: q1 and q2 finished; q3 was cut short after one call and is not counted as wrong.
    expect(document.perItem.map((item) => [item.id, item.correct])).toEqual([
      ['q1', true],
      ['q2', true],
    ]);
    expect(document.budget.stopped).toMatchObject({ finished: 2, of: 5, unfinished: ['q3', 'q4', 'q5'] });
  });

  it('weft solve: BUDGET, and the trace so far is saved with the calls made', async () => {
    const home = tempHome();
    const result = await cli([
      'solve',
      'Sum the numbers from 1 to n',
      '--tools',
      `${WORKFLOWS}/tools.yaml`,
      '--input',
      '{"n":3}',
      '--model',
      `sim:reference=${SUM_TO_N}`,
      '--home',
      home,
      '--max-calls',
      '2',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as {
      traceId: string;
      success: boolean;
      calls: { tool: string }[];
      usage: { calls: number };
      error: BudgetError;
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-calls' } });
    expect(document.success).toBe(false);
    expect(document.usage.calls).toBe(2);
    expect(document.calls.map((call) => call.tool)).toEqual(['add', 'add']);
    const shown = await cli(['traces', 'show', document.traceId, '--home', home, '--json']);
    expect(shown.code).toBe(0);
    const trace = JSON.parse(shown.stdout) as { calls: unknown[]; error: string };
    expect(trace.calls).toHaveLength(2);
    expect(trace.error).toBe('stopped by the budget before an answer: Budget exhausted: call budget of 2 reached');
  });

  it('weft solve --timeout: the call after a tool that outlived the deadline is refused; the trace is saved', async () => {
    const home = tempHome();
    const script = write(
      home,
      'pause.json',
      // The deadline covers loading the tools file, whose module tools start in a worker thread: a margin for that.
      JSON.stringify({ replies: [{ toolCalls: [{ name: 'pause', args: { ms: 4000 } }] }, { text: '{"answer": 1}' }] }),
    );
    const result = await cli([
      'solve',
      'Wait, then answer',
      '--tools',
      `${WORKFLOWS}/batch/tools.yaml`,
      '--input',
      '{}',
      '--model',
      `scripted:${script}`,
      '--home',
      home,
      '--timeout',
      '2',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as {
      traceId: string;
      calls: { tool: string; ok: boolean }[];
      usage: { calls: number };
      error: BudgetError;
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--timeout' } });
    expect(document.usage.calls).toBe(1);
    expect(document.calls).toMatchObject([{ tool: 'pause', ok: true }]);
    const listed = JSON.parse((await cli(['traces', '--home', home, '--json'])).stdout) as {
      traces: { traceId: string }[];
    };
    expect(listed.traces.map((trace) => trace.traceId)).toEqual([document.traceId]);
  });

  it('weft distill: BUDGET, and the graph so far is written as the partial workflow', async () => {
    const home = tempHome();
    const solved = JSON.parse(
      (
        await cli([
          'solve',
          'Sum the numbers from 1 to n',
          '--tools',
          `${WORKFLOWS}/tools.yaml`,
          '--input',
          '{"n":3}',
          '--model',
          `sim:reference=${SUM_TO_N}`,
          '--home',
          home,
          '--json',
        ])
      ).stdout,
    ) as { traceId: string };
    const out = join(home, 'sum.json');
    const result = await cli([
      'distill',
      solved.traceId,
      '--tools',
      `${WORKFLOWS}/tools.yaml`,
      '--model',
      `sim:reference=${SUM_TO_N}`,
      '--strategy',
      'react',
      '--out',
      out,
      '--home',
      home,
      '--max-calls',
      '3',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as {
      out: string;
      finished: boolean;
      steps: number;
      graphCalls: number;
      error: BudgetError;
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-calls' } });
    expect(document).toMatchObject({ out: join(home, 'sum.partial.json'), finished: false, steps: 3 });
    expect(document.graphCalls).toBeGreaterThan(0);
    const partial = JSON.parse(readFileSync(document.out, 'utf8')) as { nodes: unknown[] };
    expect(partial.nodes.length).toBeGreaterThan(0);
    expect(existsSync(out)).toBe(false);
  });

  it('weft distill eval: the task runs that finished are reported and kept in --out', async () => {
    const home = tempHome();
    const out = join(home, 'eval');
    const result = await cli([
      'distill',
      'eval',
      '--suite',
      'examples/distill-suite',
      '--task',
      'gcd',
      '--task',
      'fizzbuzz',
      '--variant',
      'es-pe',
      '--concurrency',
      '1',
      '--model',
      'sim:seed=1',
      '--out',
      out,
      '--home',
      home,
      '--max-calls',
      '25',
      '--json',
    ]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as {
      tasks: { task: string; correct: boolean }[];
      budget: { usage: { calls: number }; stopped: { finished: number; of: number; unfinished: string[] } };
      error: BudgetError;
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-calls' } });
    // gcd (the first, one at a time) needs fewer than 25 calls; fizzbuzz was cut short and is left out.
    expect(document.tasks.map((task) => [task.task, task.correct])).toEqual([['gcd', true]]);
    expect(document.budget.stopped).toMatchObject({ finished: 1, of: 2, unfinished: ['es-pe/fizzbuzz'] });
    expect(document.budget.usage.calls).toBe(25);
    expect(existsSync(join(out, 'tasks', 'gcd'))).toBe(true);
    expect(existsSync(join(out, 'tasks', 'fizzbuzz'))).toBe(false);
    expect(result.stderr).toContain('distill eval stopped by the budget');
  });

  it('weft bench worfbench: the predictions so far are kept, and a rerun without the budget resumes', async () => {
    const home = tempHome();
    const records = (JSON.parse(readFileSync(join(GOLD, 'alfworld.json'), 'utf8')) as unknown[]).slice(0, 4);
    const data = write(home, 'gold.json', JSON.stringify(records));
    const args = ['bench', 'worfbench', '--data', data, '--model', 'sim:seed=1', '--concurrency', '1', '--home', home];
    const stopped = await cli([...args, '--max-calls', '2', '--json']);
    expect(stopped.code).toBe(1);
    const document = JSON.parse(stopped.stdout) as {
      generated: number;
      calls: number;
      report: unknown;
      cancelled?: boolean;
      error: BudgetError;
    };
    expect(document.error).toMatchObject({ code: 'BUDGET', location: { field: '--max-calls' } });
    expect(document).toMatchObject({ generated: 2, calls: 2, report: null });
    expect(document.cancelled).toBeUndefined();
    const resumed = JSON.parse((await cli([...args, '--json'])).stdout) as { resumed: number; generated: number };
    expect(resumed).toMatchObject({ resumed: 2, generated: 2 });
  });
});
