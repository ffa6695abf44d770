/**
 * The distillation harness (issue 14, SPEC §5.2; `weft distill eval`): for each task and variant, execute on the
 * task's train inputs, select traces, summarize them into a workflow (or, for the single-stage baselines, solve and
 * build at once), then run the workflow on the held-out tests with `runWorkflow` — no model — and score it. The
 * stages are injected (`SuiteStagesFactory`), so the harness is tested with fake stages and the real ones plug in
 * from suite-stages.ts. A stage that throws fails its task, never the suite. Tasks run concurrently (bounded);
 * on abort the tasks that finished make a partial report.
 */
import PQueue from 'p-queue';
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';
import type { NewTrace } from '../store/traces.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { hashString } from '../llm/seeded-random.js';
import { sameJson } from '../text/same-json.js';
import { checkWorkflow } from './check-workflow.js';
import { selectTraces } from './select-traces.js';
import { withDistillSim } from './distill-sim.js';
import { tracedModel } from '../llm/traced-model.js';
import type { SuiteTask, TaskInput } from './load-suite.js';
import { runWorkflow } from './run-workflow.js';
import {
  DISTILL_VARIANTS,
  type DistillResult,
  type DistillVariant,
  TRACE_SELECTIONS,
  type TraceSelection,
} from './stage-types.js';
import {
  NO_USAGE,
  type StageUsage,
  summarizeVariant,
  type TaskEvaluation,
  type TestCaseResult,
  testScore,
  type VariantSummary,
} from './suite-metrics.js';
import type { ExecutableWorkflow } from './workflow.js';

export const DEFAULT_SUITE_CONCURRENCY = 4;
/** The variants and trace selections `weft distill eval` accepts (stage-types.ts's lists, under the suite's names). */
export const SUITE_VARIANTS: readonly DistillVariant[] = DISTILL_VARIANTS;
export const SUITE_SELECTIONS: readonly TraceSelection[] = TRACE_SELECTIONS;

/** What a stage gets besides its own arguments. */
export interface StageContext {
  readonly task: SuiteTask;
  /** The task's business tools. */
  readonly tools: readonly Tool[];
  readonly signal: AbortSignal;
}

/**
 * The stages of one variant. ES variants use `execute` and `summarize`; the baselines (`react`, `pe`) use
 * `solveAndBuild`, which solves one instance and builds the workflow in one agent.
 */
export interface SuiteStages {
  readonly execute?: (input: TaskInput, expected: JsonValue | undefined, context: StageContext) => Promise<NewTrace>;
  readonly summarize?: (traces: readonly NewTrace[], context: StageContext) => Promise<DistillResult>;
  readonly solveAndBuild?: (
    input: TaskInput,
    expected: JsonValue | undefined,
    context: StageContext,
  ) => Promise<{ readonly trace: NewTrace; readonly distill: DistillResult }>;
}

/** Called per task with the task's model (counted; with a sim model, following the task's reference). */
export type SuiteStagesFactory = (model: ChatModel, variant: DistillVariant) => SuiteStages;

export type SelectTraces = (traces: readonly NewTrace[], selection: TraceSelection, seed: string) => NewTrace[];

export interface EvaluateSuiteOptions {
  readonly model: ChatModel;
  readonly stages: SuiteStagesFactory;
  readonly variants: readonly DistillVariant[];
  /** The business tools of a task (the caller opens them, once per file). */
  readonly toolsFor: (task: SuiteTask) => readonly Tool[];
  readonly selection?: TraceSelection;
  readonly select?: SelectTraces;
  /** Tasks (times variants) in flight at once. */
  readonly concurrency?: number;
  /** The price of a model call (default 0). */
  readonly costOf?: (result: ChatResult) => number;
  /** Node visits per test case. */
  readonly maxVisits?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: { done: number; total: number; evaluation: TaskEvaluation }) => void;
}

export interface SuiteReport {
  readonly simulated: boolean;
  readonly variants: readonly VariantSummary[];
  readonly tasks: readonly (TaskEvaluation & { readonly workflow?: ExecutableWorkflow })[];
  /** Set when the run was aborted: the report covers the jobs that finished. */
  readonly cancelled?: { readonly finished: number; readonly of: number };
}

export async function evaluateSuite(tasks: readonly SuiteTask[], options: EvaluateSuiteOptions): Promise<SuiteReport> {
  const signal = options.signal ?? new AbortController().signal;
  const jobs = options.variants.flatMap((variant) => tasks.map((task) => ({ variant, task })));
  const results = new Map<number, TaskEvaluation & { workflow?: ExecutableWorkflow }>();
  const queue = new PQueue({ concurrency: Math.max(1, options.concurrency ?? DEFAULT_SUITE_CONCURRENCY) });
  let done = 0;
  await Promise.all(
    jobs.map((job, index) =>
      queue.add(async () => {
        if (signal.aborted) return;
        const evaluation = await evaluateTask(job.task, job.variant, options, signal);
        // A job that was in flight at the abort may have been cut short: left out rather than counted as failed.
        if (signal.aborted) return;
        results.set(index, evaluation);
        done += 1;
        options.onProgress?.({ done, total: jobs.length, evaluation });
      }),
    ),
  );
  const finished = [...results.entries()].sort(([a], [b]) => a - b).map(([, evaluation]) => evaluation);
  return {
    simulated: options.model.kind !== 'real',
    variants: options.variants.map((variant) =>
      summarizeVariant(
        variant,
        finished.filter((evaluation) => evaluation.variant === variant),
      ),
    ),
    tasks: finished,
    ...(finished.length < jobs.length ? { cancelled: { finished: finished.length, of: jobs.length } } : {}),
  };
}

/** One task under one variant; never throws (a failing stage is recorded in `error`). */
export async function evaluateTask(
  task: SuiteTask,
  variant: DistillVariant,
  options: EvaluateSuiteOptions,
  signal: AbortSignal,
): Promise<TaskEvaluation & { workflow?: ExecutableWorkflow }> {
  // A `chat` span per call (a no-op without a tracing SDK), the sim's answers included: it follows the reference here.
  const traced = tracedModel(withDistillSim(options.model, task.reference), {
    ...(options.costOf ? { costOf: options.costOf } : {}),
  });
  const counted = countingModel(traced, options.costOf);
  const tools = options.toolsFor(task);
  const context: StageContext = { task, tools, signal };
  const base = {
    task: task.name,
    ...(task.category !== undefined ? { category: task.category } : {}),
    variant,
  };
  const traces: NewTrace[] = [];
  let distill: DistillResult | undefined;
  const baseline = variant === 'react' || variant === 'pe';
  // The train answers are worked out before any stage runs (the reference needs no model).
  const answers: (JsonValue | undefined)[] = [];
  for (const input of baseline ? task.train.slice(0, 1) : task.train)
    answers.push(await referenceAnswer(task, input, tools, signal));
  try {
    const stages = options.stages(counted.model, variant);
    if (baseline) {
      // The single-stage baseline solves one instance and builds the workflow while doing so.
      const solveAndBuild = need(stages.solveAndBuild, 'solveAndBuild', variant);
      const first = task.train[0] as TaskInput;
      const built = await solveAndBuild(first, answers[0], context);
      traces.push(built.trace);
      distill = built.distill;
    } else {
      const execute = need(stages.execute, 'execute', variant);
      const summarize = need(stages.summarize, 'summarize', variant);
      for (const [index, input] of task.train.entries()) traces.push(await execute(input, answers[index], context));
      const chosen = (options.select ?? selectSuiteTraces)(traces, options.selection ?? 'random_success', task.name);
      if (chosen.length === 0) throw new Error('no successful train trace to summarize');
      distill = await summarize(chosen, context);
    }
  } catch (error) {
    return failed(
      base,
      baseline ? 1 : task.train.length,
      task,
      traces,
      distill,
      counted.usage(),
      (error as Error).message ?? String(error),
    );
  }
  const problems = await checkWorkflow(distill.workflow, { toolNames: tools.map((tool) => tool.name) }).catch(
    (error: unknown) => [{ severity: 'error' as const, message: (error as Error).message }],
  );
  const graphErrors = problems.filter((problem) => problem.severity === 'error').map(describeProblem);
  const graphValid = distill.valid && graphErrors.length === 0;
  const stagesUsage = counted.usage();
  const cases: TestCaseResult[] = [];
  let execLlmCalls = 0;
  // An invalid graph is not run: its tests count as failed.
  if (graphValid) {
    for (const [index, test] of task.tests.entries()) {
      if (signal.aborted) break;
      try {
        const run = await runWorkflow(distill.workflow, {
          tools,
          input: test.input,
          signal,
          ...(options.maxVisits !== undefined ? { maxVisits: options.maxVisits } : {}),
        });
        execLlmCalls += run.llmCalls;
        cases.push({ index, ok: sameJson(run.output, test.expected), output: run.output });
      } catch (error) {
        cases.push({ index, ok: false, error: (error as Error).message });
      }
    }
  }
  execLlmCalls += counted.usage().calls - stagesUsage.calls;
  const successful = traces.filter((trace) => trace.success).length;
  return {
    ...base,
    trainTraces: traces.length,
    successfulTraces: successful,
    executionComplete: traces.length > 0 && successful === traces.length,
    finished: distill.finished,
    graphValid,
    graphErrors: [
      ...(distill.valid ? [] : [distill.error ?? 'the summarizer reported an invalid graph']),
      ...graphErrors,
    ].slice(0, 5),
    mixedCalls: distill.mixedCalls,
    graphCalls: distill.graphCalls,
    tests: task.tests.length,
    ...testScore(cases, task.tests.length),
    cases,
    execLlmCalls,
    usage: stagesUsage,
    workflow: distill.workflow,
  };
}

/**
 * The harness's trace selection: the rule as given (select-traces.ts, seeded by the task's name), but a task whose
 * train traces all failed still gets summarized from its first trace, as the paper does (its quadrant analysis has
 * correct workflows from failed executions); execution completeness reports the failure.
 */
export function selectSuiteTraces(traces: readonly NewTrace[], selection: TraceSelection, seed: string): NewTrace[] {
  if (traces.length === 0) return [];
  const anySuccess = traces.some((trace) => trace.success);
  return selectTraces(traces, anySuccess ? selection : 'first', hashString(seed));
}

/**
 * What a train input's answer should be: the reference workflow's output on it (no model), so that a trace succeeds
 * only with the right answer. Undefined without a reference, or when the reference fails on it.
 */
async function referenceAnswer(
  task: SuiteTask,
  input: TaskInput,
  tools: readonly Tool[],
  signal: AbortSignal,
): Promise<JsonValue | undefined> {
  if (!task.reference) return undefined;
  try {
    return (await runWorkflow(task.reference, { tools, input, signal })).output as JsonValue;
  } catch {
    return undefined;
  }
}

function need<T>(stage: T | undefined, name: string, variant: DistillVariant): T {
  if (stage === undefined) throw new Error(`the ${variant} variant has no ${name} stage`);
  return stage;
}

function failed(
  base: Pick<TaskEvaluation, 'task' | 'category' | 'variant'>,
  expectedTraces: number,
  task: SuiteTask,
  traces: readonly NewTrace[],
  distill: DistillResult | undefined,
  usage: StageUsage,
  error: string,
): TaskEvaluation {
  const successful = traces.filter((trace) => trace.success).length;
  return {
    ...base,
    trainTraces: traces.length,
    successfulTraces: successful,
    executionComplete: successful === expectedTraces,
    finished: false,
    graphValid: false,
    graphErrors: [],
    mixedCalls: distill?.mixedCalls ?? 0,
    graphCalls: distill?.graphCalls ?? 0,
    tests: task.tests.length,
    passed: 0,
    passRate: 0,
    correct: false,
    cases: [],
    execLlmCalls: 0,
    usage,
    error,
  };
}

function describeProblem(problem: { path?: string; node?: string; message: string }): string {
  const where = problem.node ? `node ${problem.node}` : problem.path;
  return where ? `${where}: ${problem.message}` : problem.message;
}

/** The model with a counter of its calls, tokens and cost. */
export function countingModel(
  model: ChatModel,
  costOf: ((result: ChatResult) => number) | undefined,
): { model: ChatModel; usage: () => StageUsage } {
  let usage: StageUsage = NO_USAGE;
  return {
    usage: () => usage,
    model: {
      id: model.id,
      kind: model.kind,
      ...(model.toolCalling ? { toolCalling: model.toolCalling } : {}),
      async generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
        const result = await model.generate(call, signal);
        usage = {
          calls: usage.calls + 1,
          inputTokens: usage.inputTokens + result.usage.inputTokens,
          outputTokens: usage.outputTokens + result.usage.outputTokens,
          costUsd: usage.costUsd + (costOf?.(result) ?? 0),
        };
        return result;
      },
    },
  };
}
