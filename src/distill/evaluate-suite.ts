/**
 * The distillation harness (`weft distill eval`, the FlowMind paper's protocol): for each task and variant, execute
 * on the task's train inputs (`rollouts` traces each), select traces, summarize them into a workflow (or, for the
 * single-stage baselines, solve and build at once), then run the workflow on the held-out tests — no model, each
 * case in a worker thread with hard limits (runWorkflowIsolated, `caseLimits`) — and score it, black-box (its outputs) and white-box (WorfEval against the task's reference). The
 * stages are injected (`SuiteStagesFactory`), so the harness is tested with fake stages and the real ones plug in
 * from suite-stages.ts. A stage that throws fails its task, never the suite. Tasks run concurrently (bounded); each
 * finished task run is handed to `onTaskRun` (its workflow, traces and case results, for `--out`) before the next
 * starts in its place; on abort the tasks that finished make a partial report. With a budget, every task's model is
 * charged to one budget scope (runtime/budget-scope.ts); once it is spent no task starts, the tasks in flight are
 * stopped, and the report covers the tasks that finished and says which budget stopped the suite (`budget.stopped`).
 */
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { wrapModel } from '../llm/wrap-model.js';
import { createMeter, type Budget, type ModelBudgetName } from '../runtime/budget.js';
import {
  type BatchBudgetReport,
  batchBudgetReport,
  type BudgetScope,
  checkBudget,
  createBudgetScope,
} from '../runtime/budget-scope.js';
import { meteredModel } from '../runtime/metered-model.js';
import type { NewTrace } from '../store/traces.js';
import type { JsonValue, Tool } from '../tools/tool.js';
import { hashString } from '../llm/seeded-random.js';
import { sameJson } from '../text/same-json.js';
import { isAbortError, isWeftError } from '../errors.js';
import { boundedMap } from '../runtime/bounded-map.js';
import { integerOption } from '../integer-option.js';
import { checkWorkflow } from './check-workflow.js';
import { selectTraces } from './select-traces.js';
import { withDistillSim } from './distill-sim.js';
import { tracedModel } from '../llm/traced-model.js';
import type { SuiteTask, TaskInput } from './load-suite.js';
import { runWorkflow } from './run-workflow.js';
import { type IsolatedRunOptions, runWorkflowIsolated } from './run-workflow-isolated.js';
import { scoreAgainstReference } from './score-against-reference.js';
import {
  DISTILL_VARIANTS,
  type DistillResult,
  type DistillVariant,
  TRACE_SELECTIONS,
  type TraceSelection,
} from './stage-types.js';
import {
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
  /** The execute stage: which rollout of this input (from 1). */
  readonly rollout?: number;
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
  /** Traces per train input in the execute stage (default 1, at most MAX_ROLLOUTS); the baselines make one. */
  readonly rollouts?: number;
  /** Node visits per test case (and per reference run that works out a train answer). */
  readonly maxVisits?: number;
  /**
   * The hard limits of a held-out test case, which runs in a worker thread (runWorkflowIsolated): computing time,
   * worker memory and worker threads (`weft distill eval --time-limit`, `--worker-memory`, `--jobs`). A
   * model-written workflow past them fails that case alone. Default: runWorkflowIsolated's.
   */
  readonly caseLimits?: Pick<IsolatedRunOptions, 'timeLimitMs' | 'memoryMb' | 'jobs'>;
  readonly signal?: AbortSignal;
  /**
   * Called with each finished task run, awaited before the run counts as done (`weft distill eval --out` writes
   * its files here). If it throws, no new task run starts, the runs in flight are aborted, and evaluateSuite rejects
   * with that error once they have ended.
   */
  readonly onTaskRun?: (run: TaskRun) => Promise<void>;
  readonly onProgress?: (event: { done: number; total: number; evaluation: TaskEvaluation }) => void;
  /**
   * One budget for the whole suite (every stage of every task): once spent, no task starts, the tasks in flight are
   * stopped and left out of the report, and `budget.stopped` says which budget it was.
   */
  readonly budget?: Budget;
  /** How the caller names each budget (`--max-calls`); default `budget.maxCalls` and so on. */
  readonly budgetFields?: Partial<Record<ModelBudgetName, string>>;
}

/** One task under one variant, with what it made: for inspection, not for the numbers. */
export interface TaskRun {
  readonly task: SuiteTask;
  readonly evaluation: TaskEvaluation;
  /** The workflow the stage built (whole when `finished`, else the partial graph); absent when a stage threw first. */
  readonly workflow?: ExecutableWorkflow;
  /** Every trace of the execute stage (every rollout of every train input), or the baseline's one. */
  readonly traces: readonly NewTrace[];
  /** The traces the summarizer got (ES variants). */
  readonly selected?: readonly NewTrace[];
}

export const MAX_ROLLOUTS = 100;

export interface SuiteReport {
  readonly simulated: boolean;
  readonly variants: readonly VariantSummary[];
  readonly tasks: readonly TaskEvaluation[];
  /** Set when the run was aborted: the report covers the jobs that finished. */
  readonly cancelled?: { readonly finished: number; readonly of: number };
  /** With a budget: the limits, what the suite used, and whether it stopped the suite (the tasks it cut short). */
  readonly budget?: BatchBudgetReport;
}

export async function evaluateSuite(tasks: readonly SuiteTask[], options: EvaluateSuiteOptions): Promise<SuiteReport> {
  integerOption(options.rollouts ?? 1, 'rollouts', { min: 1, max: MAX_ROLLOUTS });
  // Rejected like every engine's, not quietly turned into 1.
  const concurrency = integerOption(options.concurrency ?? DEFAULT_SUITE_CONCURRENCY, 'concurrency', { min: 1 });
  if (options.budget) checkBudget(options.budget, options.budgetFields);
  const jobs = options.variants.flatMap((variant) => tasks.map((task) => ({ variant, task })));
  const results = new Map<number, TaskEvaluation>();
  const scope = options.budget
    ? createBudgetScope({ budget: options.budget, ...(options.budgetFields ? { fields: options.budgetFields } : {}) })
    : undefined;
  // A spent budget (or its deadline) stops the suite as an abort would: the tasks in flight are left out.
  const spent = new AbortController();
  const signal = AbortSignal.any(
    [options.signal, scope?.signal, spent.signal].filter((one): one is AbortSignal => one !== undefined),
  );
  let done = 0;
  try {
    // A hand-off that throws is fatal: the bounded map aborts the runs in flight, starts no more and throws it.
    await boundedMap(jobs, { concurrency, signal }, async (job, jobSignal, index) => {
      const run = await runSuiteTask(job.task, job.variant, options, jobSignal, scope);
      if (scope?.stop() && !spent.signal.aborted) spent.abort(scope.error());
      // A job that was in flight at the abort, or that the budget reached, may have been cut short: left out
      // rather than counted as failed.
      if (jobSignal.aborted || run.budgetStopped) return;
      await options.onTaskRun?.(run);
      results.set(index, run.evaluation);
      done += 1;
      options.onProgress?.({ done, total: jobs.length, evaluation: run.evaluation });
    });
  } catch (error) {
    // Cancelled or out of budget: the tasks that finished make a partial report.
    if (!(signal.aborted && (isAbortError(error) || (isWeftError(error) && error.code === 'BUDGET')))) throw error;
  } finally {
    scope?.close();
  }
  const finished = [...results.entries()].sort(([a], [b]) => a - b).map(([, evaluation]) => evaluation);
  const budget = batchBudgetReport(scope, options.budget, {
    finished: finished.length,
    of: jobs.length,
    unfinished: jobs.filter((_, index) => !results.has(index)).map((job) => `${job.variant}/${job.task.name}`),
  });
  return {
    simulated: options.model.kind !== 'real',
    variants: options.variants.map((variant) =>
      summarizeVariant(
        variant,
        finished.filter((evaluation) => evaluation.variant === variant),
      ),
    ),
    tasks: finished,
    ...(options.signal?.aborted && finished.length < jobs.length
      ? { cancelled: { finished: finished.length, of: jobs.length } }
      : {}),
    ...(budget ? { budget } : {}),
  };
}

/** One task under one variant: its evaluation alone (see runSuiteTask for what it made too). Never throws. */
export async function evaluateTask(
  task: SuiteTask,
  variant: DistillVariant,
  options: EvaluateSuiteOptions,
  signal: AbortSignal,
): Promise<TaskEvaluation> {
  return (await runSuiteTask(task, variant, options, signal)).evaluation;
}

/** One task under one variant, with its workflow and traces; never throws (a failing stage is recorded in `error`). */
export async function runSuiteTask(
  task: SuiteTask,
  variant: DistillVariant,
  options: EvaluateSuiteOptions,
  signal: AbortSignal,
  scope?: BudgetScope,
): Promise<TaskRun & { readonly budgetStopped?: true }> {
  // A `chat` span per call (a no-op without a tracing SDK), the sim's answers included: it follows the reference here.
  const traced = tracedModel(withDistillSim(options.model, task.reference), {
    ...(options.costOf ? { costOf: options.costOf } : {}),
  });
  const taskCounted = countingModel(traced, options.costOf);
  // Charged to the suite's budget outside the task's own count: a call the budget refuses is not counted as made.
  let budgetStopped = false;
  const charged = scope
    ? wrapModel(scope.metered(taskCounted.model, options.costOf), {
        async wrapGenerate({ call, signal: callSignal, next }) {
          try {
            return await next(call, callSignal);
          } catch (error) {
            if (isWeftError(error) && error.code === 'BUDGET') budgetStopped = true;
            throw error;
          }
        },
      })
    : taskCounted.model;
  const counted = { model: charged, usage: taskCounted.usage };
  const stopMark = () => (budgetStopped ? { budgetStopped: true as const } : {});
  const tools = options.toolsFor(task);
  const context: StageContext = { task, tools, signal };
  const baseline = variant === 'react' || variant === 'pe';
  const inputs = baseline ? task.train.slice(0, 1) : task.train;
  const rollouts = baseline ? 1 : (options.rollouts ?? 1);
  const maxVisits = options.maxVisits !== undefined ? { maxVisits: options.maxVisits } : {};
  const traces: NewTrace[] = [];
  // The train input each trace solved (its index in `inputs`).
  const inputOf: number[] = [];
  let selected: NewTrace[] | undefined;
  let distill: DistillResult | undefined;
  // The train answers are worked out before any stage runs (the reference needs no model).
  const answers: (JsonValue | undefined)[] = [];
  for (const input of inputs) answers.push(await referenceAnswer(task, input, tools, signal, maxVisits));
  const facts = () => {
    const solved = new Set(inputOf.filter((_, index) => traces[index]?.success));
    return {
      task: task.name,
      ...(task.category !== undefined ? { category: task.category } : {}),
      variant,
      trainInputs: inputs.length,
      rollouts,
      solvedInputs: solved.size,
      trainTraces: traces.length,
      successfulTraces: traces.filter((trace) => trace.success).length,
      executionComplete: inputs.length > 0 && solved.size === inputs.length,
      ...(selected ? { selectedTraces: selected.map((trace) => trace.traceId) } : {}),
    };
  };
  const worfOf = async (workflow: ExecutableWorkflow | undefined) => {
    if (!task.reference) return {};
    const scored = await scoreAgainstReference(task.reference, workflow, signal).catch((error: unknown) => ({
      error: (error as Error).message,
    }));
    return 'error' in scored ? { worfError: scored.error } : { worf: scored };
  };
  try {
    const stages = options.stages(counted.model, variant);
    if (baseline) {
      // The single-stage baseline solves one instance and builds the workflow while doing so.
      const solveAndBuild = need(stages.solveAndBuild, 'solveAndBuild', variant);
      const built = await solveAndBuild(inputs[0] as TaskInput, answers[0], context);
      traces.push(built.trace);
      inputOf.push(0);
      distill = built.distill;
    } else {
      const execute = need(stages.execute, 'execute', variant);
      const summarize = need(stages.summarize, 'summarize', variant);
      for (const [index, input] of inputs.entries()) {
        for (let rollout = 1; rollout <= rollouts; rollout++) {
          traces.push(await execute(input, answers[index], { ...context, rollout }));
          inputOf.push(index);
        }
      }
      selected = (options.select ?? selectSuiteTraces)(traces, options.selection ?? 'random_success', task.name);
      if (selected.length === 0) throw new Error('no successful train trace to summarize');
      distill = await summarize(selected, context);
    }
  } catch (error) {
    const evaluation: TaskEvaluation = {
      ...facts(),
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
      usage: counted.usage(),
      ...(await worfOf(distill?.workflow)),
      error: (error as Error).message ?? String(error),
    };
    return {
      task,
      evaluation,
      traces,
      ...(selected ? { selected } : {}),
      ...(distill ? { workflow: distill.workflow } : {}),
      ...stopMark(),
    };
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
        // The workflow is the model's: in a worker thread, so that an expression that never ends (or allocates
        // without end) fails this case alone.
        const run = await runWorkflowIsolated(distill.workflow, {
          ...options.caseLimits,
          tools,
          input: test.input,
          signal,
          ...maxVisits,
        });
        execLlmCalls += run.llmCalls;
        cases.push({ index, ok: sameJson(run.output, test.expected), output: run.output });
      } catch (error) {
        cases.push({ index, ok: false, error: (error as Error).message });
      }
    }
  }
  execLlmCalls += counted.usage().calls - stagesUsage.calls;
  const evaluation: TaskEvaluation = {
    ...facts(),
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
    ...(await worfOf(distill.workflow)),
  };
  return {
    task,
    evaluation,
    traces,
    ...(selected ? { selected } : {}),
    workflow: distill.workflow,
    ...stopMark(),
  };
}

/**
 * The harness's trace selection: the rule as given (select-traces.ts, seeded by the task's name), but a task whose
 * train traces all failed is still summarized from its first trace under the rules that need a successful one
 * (`random_success`, `all_success`), as the paper does (its quadrant analysis has correct workflows from failed
 * executions); `all` and `first` take failed traces anyway. Execution completeness reports the failure.
 */
export function selectSuiteTraces(traces: readonly NewTrace[], selection: TraceSelection, seed: string): NewTrace[] {
  if (traces.length === 0) return [];
  const needsSuccess = selection === 'random_success' || selection === 'all_success';
  const rule = needsSuccess && !traces.some((trace) => trace.success) ? 'first' : selection;
  return selectTraces(traces, rule, hashString(seed));
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
  maxVisits: { maxVisits?: number },
): Promise<JsonValue | undefined> {
  if (!task.reference) return undefined;
  try {
    return (await runWorkflow(task.reference, { tools, input, signal, ...maxVisits })).output as JsonValue;
  } catch {
    return undefined;
  }
}

function need<T>(stage: T | undefined, name: string, variant: DistillVariant): T {
  if (stage === undefined) throw new Error(`the ${variant} variant has no ${name} stage`);
  return stage;
}

function describeProblem(problem: { path?: string; node?: string; message: string }): string {
  const where = problem.node ? `node ${problem.node}` : problem.path;
  return where ? `${where}: ${problem.message}` : problem.message;
}

/** The model with a counter of its calls, tokens and cost: the runtime meter, with no budget of its own. */
export function countingModel(
  model: ChatModel,
  costOf: ((result: ChatResult) => number) | undefined,
): { model: ChatModel; usage: () => StageUsage } {
  const meter = createMeter();
  return {
    usage: () => ({ ...meter }),
    model: meteredModel(model, {
      budget: {},
      meter,
      now: () => 0,
      costOf: (result) => costOf?.(result) ?? 0,
      // The model is traced already (tracedModel above).
      trace: false,
    }),
  };
}
