/**
 * The suite harness with fake stages over real tasks of the shipped suite (module tools only, no API): a stage that
 * returns the reference is correct; a wrong workflow is not, with its pass rate; an invalid graph scores validity 0
 * and is not run; a stage that throws fails its task, not the suite; the baselines go through solveAndBuild; model
 * calls are counted per stage, and any made while the workflow runs show up as exec-time LLM calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evaluateSuite,
  selectSuiteTraces,
  type SuiteStages,
  type SuiteStagesFactory,
  type TaskRun,
} from '../../src/distill/evaluate-suite.js';
import { closeWorkflowWorkers } from '../../src/distill/run-workflow-isolated.js';
import { formatSuiteReport } from '../../src/distill/format-suite-report.js';
import { loadSuite, type SuiteTask } from '../../src/distill/load-suite.js';
import { openSuiteTools, type SuiteTools } from '../../src/distill/open-suite-tools.js';
import type { DistillResult } from '../../src/distill/stage-types.js';
import { summarizeVariant } from '../../src/distill/suite-metrics.js';
import { sameJson } from '../../src/text/same-json.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import type { NewTrace } from '../../src/store/traces.js';
import type { Tool } from '../../src/tools/tool.js';

const NAMES = ['sum-to-n', 'palindrome', 'fizzbuzz', 'title-case'];
let tasks: readonly SuiteTask[];
let tools: SuiteTools;

beforeAll(async () => {
  tasks = (await loadSuite('examples/distill-suite', { only: NAMES })).tasks;
  tools = await openSuiteTools(tasks);
});
afterAll(async () => {
  await tools?.close();
  await closeWorkflowWorkers();
});

/** A scripted model: 10 input and 5 output tokens per call. */
function fakeModel(): ChatModel {
  return {
    id: 'scripted:fake',
    kind: 'scripted',
    async generate() {
      return { text: 'ok', usage: { inputTokens: 10, outputTokens: 5 }, model: 'fake' };
    },
  };
}

function trace(task: SuiteTask, input: unknown, success = true): NewTrace {
  return {
    traceId: `t-${task.name}`,
    task: task.description,
    taskKey: task.name,
    mode: 'plan-execute',
    model: 'scripted:fake',
    input,
    calls: [],
    success,
    usage: { calls: 1, inputTokens: 10, outputTokens: 5 },
  };
}

function distilled(workflow: ExecutableWorkflow, extra: Partial<DistillResult> = {}): DistillResult {
  return {
    workflow,
    finished: true,
    problems: [],
    valid: true,
    mixedCalls: 0,
    graphCalls: workflow.nodes.length + workflow.edges.length,
    steps: 1,
    usage: { calls: 1, inputTokens: 10, outputTokens: 5 },
    ...extra,
  };
}

/** Stages that call the model once per execute and once per summarize, and build what `build` gives. */
function fakeStages(build: (task: SuiteTask) => DistillResult | Promise<DistillResult>): SuiteStagesFactory {
  return (model): SuiteStages => ({
    execute: async (input, _expected, { task }) => {
      await model.generate({ messages: [{ role: 'user', content: task.description }] });
      return trace(task, input);
    },
    summarize: async (_traces, { task }) => {
      await model.generate({ messages: [{ role: 'user', content: 'summarize' }] });
      return build(task);
    },
    solveAndBuild: async (input, _expected, { task }) => {
      await model.generate({ messages: [{ role: 'user', content: 'both' }] });
      return { trace: trace(task, input), distill: await build(task) };
    },
  });
}

const base = () => ({ model: fakeModel(), variants: ['es-pe' as const], toolsFor: tools.toolsFor, concurrency: 2 });

describe('evaluateSuite', () => {
  it('scores the references as correct, with zero model calls at exec time and the stages counted', async () => {
    const report = await evaluateSuite(tasks, { ...base(), stages: fakeStages((task) => distilled(task.reference!)) });
    expect(report.simulated).toBe(true);
    expect(report.tasks.map((task) => task.correct)).toEqual([true, true, true, true]);
    const [summary] = report.variants;
    expect(summary).toMatchObject({ tasks: 4, correct: 4, caseRate: 1, testPassRate: 1, executionCompleteness: 1 });
    expect(summary).toMatchObject({ graphValidity: 1, both: 1, mixedCallRate: 0, execLlmCalls: 0, errors: 0 });
    // Two train inputs (execute, one call each) and one summarize call per task.
    for (const task of report.tasks)
      expect(task.usage).toEqual({ calls: 3, inputTokens: 30, outputTokens: 15, costUsd: 0 });
    expect(summary?.passed).toBe(tasks.reduce((sum, task) => sum + task.tests.length, 0));
  });

  it('a wrong workflow is not correct and its pass rate is counted; an invalid graph has validity 0 and is not run', async () => {
    const wrong = (task: SuiteTask): ExecutableWorkflow => {
      const reference = task.reference!;
      // sum-to-n answers acc + 1: wrong on every test; palindrome swaps one answer: right on some.
      if (task.name === 'sum-to-n')
        return {
          ...reference,
          nodes: reference.nodes.map((node) =>
            node.kind === 'end' ? { ...node, output: '{% vars.acc + 1 %}' } : node,
          ),
        };
      return {
        ...reference,
        nodes: reference.nodes.map((node) => (node.id === 'no' ? { ...node, output: 'palindrome' } : node)),
      };
    };
    const invalid = (task: SuiteTask): ExecutableWorkflow => ({
      ...task.reference!,
      nodes: task.reference!.nodes.filter((node) => node.kind !== 'end'),
    });
    const report = await evaluateSuite(tasks, {
      ...base(),
      stages: fakeStages((task) =>
        task.name === 'fizzbuzz'
          ? distilled(invalid(task), { valid: false })
          : task.name === 'title-case'
            ? distilled(invalid(task))
            : distilled(wrong(task)),
      ),
    });
    const byName = new Map(report.tasks.map((task) => [task.task, task]));
    expect(byName.get('sum-to-n')).toMatchObject({ correct: false, passed: 0, graphValid: true });
    const palindrome = byName.get('palindrome');
    // Tests 2 and 4 expect "not a palindrome": the swapped end fails exactly those.
    expect(palindrome).toMatchObject({ correct: false, passed: 3, tests: 5, passRate: 0.6 });
    expect(palindrome?.cases.filter((result) => !result.ok).map((result) => result.index)).toEqual([2, 4]);
    // Invalid whether the stage says so (fizzbuzz) or only the harness's own check finds it (title-case).
    for (const name of ['fizzbuzz', 'title-case']) {
      expect(byName.get(name), name).toMatchObject({ graphValid: false, passed: 0, correct: false, cases: [] });
      expect(byName.get(name)?.graphErrors.length, name).toBeGreaterThan(0);
    }
    expect(report.variants[0]).toMatchObject({ correct: 0, graphValidity: 0.5, both: 0.5, executionCompleteness: 1 });
    expect(report.variants[0]?.testPassRate).toBeCloseTo(3 / report.variants[0]!.tests);
  });

  it("gives the execute stage each train input's answer as the reference computes it", async () => {
    const seen: [string, unknown, unknown][] = [];
    const stages: SuiteStagesFactory = (model, variant) => {
      const inner = fakeStages((task) => distilled(task.reference!))(model, variant);
      return {
        ...inner,
        execute: async (input, expected, context) => {
          seen.push([context.task.name, input, expected]);
          return inner.execute!(input, expected, context);
        },
      };
    };
    await evaluateSuite(tasks, { ...base(), concurrency: 1, stages });
    expect(seen.filter(([name]) => name === 'sum-to-n')).toEqual([
      ['sum-to-n', { n: 3 }, 6],
      ['sum-to-n', { n: 5 }, 15],
    ]);
    expect(seen.filter(([name]) => name === 'palindrome').map(([, , expected]) => expected)).toEqual([
      'palindrome',
      'not a palindrome',
    ]);
  });

  it('a stage that throws fails that task only; unsuccessful traces make execution incomplete', async () => {
    const stages: SuiteStagesFactory = (model, variant) => {
      const inner = fakeStages((task) => distilled(task.reference!))(model, variant);
      return {
        ...inner,
        execute: async (input, expected, context) => {
          if (context.task.name === 'palindrome') throw new Error('the agent ran out of steps');
          const made = await inner.execute!(input, expected, context);
          return context.task.name === 'fizzbuzz' ? { ...made, success: false } : made;
        },
      };
    };
    const report = await evaluateSuite(tasks, { ...base(), stages });
    const byName = new Map(report.tasks.map((task) => [task.task, task]));
    expect(byName.get('palindrome')).toMatchObject({
      error: 'the agent ran out of steps',
      correct: false,
      executionComplete: false,
    });
    // No successful trace: its first trace is summarized all the same (the paper's quadrant of correct workflows
    // from failed executions), and execution completeness reports the failure.
    expect(byName.get('fizzbuzz')).toMatchObject({ executionComplete: false, correct: true });
    expect(byName.get('fizzbuzz')?.error).toBeUndefined();
    expect(byName.get('sum-to-n')?.correct).toBe(true);
    expect(byName.get('title-case')?.correct).toBe(true);
    expect(report.variants[0]).toMatchObject({ errors: 1, correct: 3, executionCompleteness: 0.5 });
    expect(formatSuiteReport(report).join('\n')).toContain('palindrome: failed: the agent ran out of steps');
  });

  it('runs the baselines through solveAndBuild and counts mixed calls; every variant gets its own table', async () => {
    const report = await evaluateSuite(tasks, {
      ...base(),
      variants: ['es-pe', 'react'],
      stages: fakeStages((task) => distilled(task.reference!, { mixedCalls: task.name === 'sum-to-n' ? 2 : 0 })),
    });
    const react = report.tasks.filter((task) => task.variant === 'react');
    expect(react.every((task) => task.trainTraces === 1 && task.usage.calls === 1)).toBe(true);
    expect(report.variants.map((summary) => summary.variant)).toEqual(['es-pe', 'react']);
    expect(report.variants[1]).toMatchObject({ mixedCalls: 2, mixedCallRate: 0.25, correct: 4 });
    const text = formatSuiteReport(report);
    expect(text).toContain('variant es-pe');
    expect(text).toContain('variant react');
    expect(text.some((line) => /^overall\s+4\/4/.test(line))).toBe(true);
  });

  it('runs each held-out case in a worker thread: a hostile one fails alone with a located error', async () => {
    const sumToN = tasks.filter((task) => task.name === 'sum-to-n');
    // The model's workflow never ends on n = 4 (one JSONata step that JSONata's own time check cannot stop would
    // block the process in-thread) and answers right on the others.
    const hostile = (task: SuiteTask): ExecutableWorkflow => ({
      ...task.reference!,
      nodes: task.reference!.nodes.map((node) =>
        node.kind === 'end'
          ? { ...node, output: '{% inputs.n = 4 ? ($f := function($k){ $f($k + 1) }; $f(0)) : vars.acc %}' }
          : node,
      ),
    });
    const report = await evaluateSuite(sumToN, {
      ...base(),
      stages: fakeStages((task) => distilled(hostile(task))),
      caseLimits: { timeLimitMs: 300, jobs: 1 },
    });
    const [task] = report.tasks;
    expect(task).toMatchObject({ graphValid: true, passed: 4, tests: 5, correct: false });
    const failed = task!.cases.filter((result) => !result.ok);
    expect(failed).toEqual([
      {
        index: 2,
        ok: false,
        error:
          "node end (output): stopped at the case's time limit of 300 ms of computing (--time-limit; tool calls not counted)",
      },
    ]);
  });

  it('counts model calls made while a workflow runs (so a 0 is a measurement)', async () => {
    let taskModel: ChatModel | undefined;
    const sneaky: Tool = {
      name: 'add',
      description: 'a + b, asking a model first',
      inputSchema: { type: 'object' },
      source: 'test',
      call: async (args) => {
        await taskModel?.generate({ messages: [{ role: 'user', content: 'help' }] });
        const { a, b } = args as { a: number; b: number };
        return a + b;
      },
    };
    const sumToN = tasks.filter((task) => task.name === 'sum-to-n');
    const stages: SuiteStagesFactory = (model, variant) => {
      taskModel = model;
      return fakeStages((task) => distilled(task.reference!))(model, variant);
    };
    const report = await evaluateSuite(sumToN, { ...base(), toolsFor: () => [sneaky], stages });
    // sum-to-n's tests add 0 + 1 + 4 + 10 + 7 = 22 times.
    expect(report.tasks[0]).toMatchObject({ correct: true, execLlmCalls: 22 });
    expect(report.tasks[0]?.usage.calls).toBe(3);
  });

  it.each([0, -2, 1.5])(
    'rejects concurrency %s as every engine does (never quietly runs one at a time), before any stage',
    async (concurrency) => {
      let started = 0;
      const stages = fakeStages((task) => {
        started += 1;
        return distilled(task.reference!);
      });
      await expect(evaluateSuite(tasks, { ...base(), concurrency, stages })).rejects.toMatchObject({
        code: 'BAD_INPUT',
        message: `concurrency expects an integer >= 1, got ${concurrency}`,
        location: { field: 'concurrency' },
      });
      expect(started).toBe(0);
    },
  );

  it('stops on abort and reports the tasks that finished', async () => {
    const controller = new AbortController();
    const stages = fakeStages((task) => {
      if (task.name === 'palindrome') controller.abort();
      return distilled(task.reference!);
    });
    const report = await evaluateSuite(tasks, { ...base(), concurrency: 1, stages, signal: controller.signal });
    expect(report.cancelled).toEqual({ finished: report.tasks.length, of: 4 });
    // One job at a time in the order asked for (sum-to-n, palindrome, …): the abort came during palindrome, which is left out.
    expect(report.tasks.map((task) => task.task)).toEqual(['sum-to-n']);
    expect(formatSuiteReport(report).at(-1)).toBe('cancelled: the report covers 1 of 4 task runs');
  });

  it('charges every task to one budget: once spent, the tasks that finished are reported and the rest named', async () => {
    // Three calls a task (two train inputs, then summarize), one task at a time: the seventh call is refused, in
    // the third task.
    const report = await evaluateSuite(tasks, {
      ...base(),
      concurrency: 1,
      stages: fakeStages((task) => distilled(task.reference!)),
      budget: { maxCalls: 6 },
      budgetFields: { maxCalls: '--max-calls' },
    });
    expect(report.tasks.map((task) => task.task)).toEqual(['sum-to-n', 'palindrome']);
    expect(report.cancelled).toBeUndefined();
    expect(report.budget?.usage.calls).toBe(6);
    expect(report.budget?.stopped).toMatchObject({
      budget: 'maxCalls',
      field: '--max-calls',
      finished: 2,
      of: 4,
      unfinished: tasks
        .slice(2)
        .map((task) => `es-pe/${task.name}`)
        .sort(),
    });
    // Each finished task's own count is its three calls.
    expect(report.tasks.map((task) => task.usage.calls)).toEqual([3, 3]);
  });

  it('refuses a bad budget before any task runs, naming its field', async () => {
    await expect(
      evaluateSuite(tasks, {
        ...base(),
        stages: fakeStages((task) => distilled(task.reference!)),
        budget: { maxCalls: 0 },
        budgetFields: { maxCalls: '--max-calls' },
      }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT', location: { field: '--max-calls' } });
  });
});

describe('evaluateSuite: rollouts, the all selection and the WorfEval column', () => {
  it('makes N traces per train input, each told its rollout; an input is solved when one of its rollouts is', async () => {
    const seen: [string, number | undefined][] = [];
    let summarized: readonly NewTrace[] = [];
    const stages: SuiteStagesFactory = (model, variant) => {
      const inner = fakeStages((task) => distilled(task.reference!))(model, variant);
      return {
        ...inner,
        execute: async (input, expected, context) => {
          seen.push([JSON.stringify(input), context.rollout]);
          const made = await inner.execute!(input, expected, context);
          // sum-to-n: only the second rollout of the first input and none of the second input succeed.
          const n = (input as { n: number }).n;
          return { ...made, traceId: `t-${n}-${context.rollout}`, success: n === 3 && context.rollout === 2 };
        },
        summarize: async (traces, context) => {
          summarized = traces;
          return inner.summarize!(traces, context);
        },
      };
    };
    const sumToN = tasks.filter((task) => task.name === 'sum-to-n');
    const report = await evaluateSuite(sumToN, { ...base(), stages, rollouts: 3, selection: 'all' });
    expect(seen).toEqual([
      ['{"n":3}', 1],
      ['{"n":3}', 2],
      ['{"n":3}', 3],
      ['{"n":5}', 1],
      ['{"n":5}', 2],
      ['{"n":5}', 3],
    ]);
    expect(report.tasks[0]).toMatchObject({
      trainInputs: 2,
      rollouts: 3,
      solvedInputs: 1,
      trainTraces: 6,
      successfulTraces: 1,
      executionComplete: false,
    });
    // `all`: the summarizer got every trace, the failed ones too, and the report names them.
    expect(summarized.map((trace) => trace.traceId)).toEqual(['t-3-1', 't-3-2', 't-3-3', 't-5-1', 't-5-2', 't-5-3']);
    expect(report.tasks[0]?.selectedTraces).toEqual(summarized.map((trace) => trace.traceId));
    expect(report.variants[0]?.traceSuccessRate).toBeCloseTo(1 / 6);
    // One success per input is enough for execution completeness.
    const once = await evaluateSuite(sumToN, {
      ...base(),
      rollouts: 2,
      stages: (model, variant) => {
        const inner = fakeStages((task) => distilled(task.reference!))(model, variant);
        return {
          ...inner,
          execute: async (input, expected, context) => ({
            ...(await inner.execute!(input, expected, context)),
            success: context.rollout === 2,
          }),
        };
      },
    });
    expect(once.tasks[0]).toMatchObject({ solvedInputs: 2, executionComplete: true, successfulTraces: 2 });
    expect(once.variants[0]).toMatchObject({ executionCompleteness: 1, traceSuccessRate: 0.5 });
    await expect(evaluateSuite(sumToN, { ...base(), stages, rollouts: 0 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      location: { field: 'rollouts' },
    });
  });

  it('hands each finished task run to onTaskRun with its workflow and traces; a hand-off that throws stops the suite', async () => {
    const runs: TaskRun[] = [];
    await evaluateSuite(tasks, {
      ...base(),
      concurrency: 1,
      stages: fakeStages((task) => distilled(task.reference!)),
      onTaskRun: async (run) => void runs.push(run),
    });
    expect(runs.map((run) => run.task.name)).toEqual(NAMES);
    expect(runs[0]).toMatchObject({ workflow: tasks[0]!.reference, evaluation: { task: 'sum-to-n', correct: true } });
    expect(runs[0]?.traces).toHaveLength(2);
    expect(runs[0]?.selected).toHaveLength(1);
    let started = 0;
    const failing = evaluateSuite(tasks, {
      ...base(),
      concurrency: 1,
      stages: fakeStages((task) => {
        started += 1;
        return distilled(task.reference!);
      }),
      onTaskRun: async () => {
        throw new Error('disk full');
      },
    });
    await expect(failing).rejects.toThrow('disk full');
    expect(started).toBe(1);
  });

  it('a hand-off that throws aborts the task runs in flight and starts no more', async () => {
    const inner = fakeStages((task) => distilled(task.reference!))(fakeModel(), 'es-pe');
    const executed: string[] = [];
    let abortedInFlight = false;
    // The hand-off fails only once palindrome's run is surely in flight (waiting), whatever the machine's speed.
    let palindromeWaits!: () => void;
    const waiting = new Promise<void>((resolve) => (palindromeWaits = resolve));
    const failing = evaluateSuite(tasks, {
      ...base(),
      concurrency: 2,
      stages: () => ({
        ...inner,
        execute: async (input, expected, context) => {
          executed.push(context.task.name);
          if (context.task.name === 'palindrome' && !context.signal.aborted) {
            // Ends only when aborted: without the abort the suite would never settle.
            const aborted = new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
            palindromeWaits();
            await aborted;
            abortedInFlight = true;
          }
          return inner.execute!(input, expected, context);
        },
      }),
      onTaskRun: async () => {
        await waiting;
        throw new Error('disk full');
      },
    });
    await expect(failing).rejects.toThrow('disk full');
    expect(abortedInFlight).toBe(true);
    // The two in flight, never the third and fourth tasks.
    expect([...new Set(executed)].sort()).toStrictEqual(['palindrome', 'sum-to-n']);
  });

  it('falls back to the first trace only for the rules that need a success; all and first take failed traces', () => {
    const failedTraces = [1, 2, 3].map((n) => ({ ...trace(tasks[0]!, { n }, false), traceId: `t-${n}` }));
    const ids = (selection: 'random_success' | 'all_success' | 'all' | 'first') =>
      selectSuiteTraces(failedTraces, selection, 'sum-to-n').map((chosen) => chosen.traceId);
    expect(ids('random_success')).toEqual(['t-1']);
    expect(ids('all_success')).toEqual(['t-1']);
    expect(ids('all')).toEqual(['t-1', 't-2', 't-3']);
    expect(ids('first')).toEqual(['t-1']);
  });

  it('scores each workflow against the reference with WorfEval: 1 for the reference itself, less for a wrong graph', async () => {
    const wrong = (task: SuiteTask): ExecutableWorkflow => {
      const reference = task.reference!;
      // The first tool node calls another tool: a different step, so a graph that matches less.
      const tool = reference.nodes.find((node) => node.kind === 'tool')!;
      return {
        ...reference,
        nodes: reference.nodes.map((node) => (node === tool ? { ...node, tool: 'format_text' } : node)),
      };
    };
    const exact = await evaluateSuite(tasks, { ...base(), stages: fakeStages((task) => distilled(task.reference!)) });
    for (const task of exact.tasks) expect(task.worf, task.task).toEqual({ f1_chain: 1, f1_graph: 1 });
    expect(exact.variants[0]?.worf).toEqual({ scored: 4, f1_chain: 1, f1_graph: 1 });
    const off = await evaluateSuite(tasks, { ...base(), stages: fakeStages((task) => distilled(wrong(task))) });
    for (const task of off.tasks) {
      expect(task.worf, task.task).toBeDefined();
      expect(task.worf!.f1_graph, task.task).toBeLessThan(1);
    }
    expect(off.variants[0]!.worf!.f1_graph).toBeLessThan(1);
    // A task whose stage threw has no workflow: it matches nothing.
    const failing = await evaluateSuite(tasks.slice(0, 1), {
      ...base(),
      stages: (model, variant) => ({
        ...fakeStages((task) => distilled(task.reference!))(model, variant),
        summarize: async () => {
          throw new Error('the summarizer broke');
        },
      }),
    });
    expect(failing.tasks[0]).toMatchObject({ error: 'the summarizer broke', worf: { f1_chain: 0, f1_graph: 0 } });
    // Without a reference there is no score, and the variant's mean leaves the task out.
    const unreferenced = tasks.slice(0, 1).map((task) => ({ ...task, reference: undefined }));
    const none = await evaluateSuite(unreferenced, {
      ...base(),
      stages: fakeStages(() => distilled(tasks[0]!.reference!)),
    });
    expect(none.tasks[0]?.worf).toBeUndefined();
    expect(none.variants[0]?.worf).toBeNull();
    expect(formatSuiteReport(none).join('\n')).toMatch(/f1 chain/);
  });
});

describe('suite metrics', () => {
  it('compares outputs as JSON, key order aside', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson(1, '1')).toBe(false);
    expect(sameJson(null, undefined)).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({}, [])).toBe(false);
  });

  it('an empty variant scores zeros, not NaN', () => {
    expect(summarizeVariant('pe', [])).toMatchObject({ tasks: 0, caseRate: 0, testPassRate: 0, both: 0 });
  });
});
