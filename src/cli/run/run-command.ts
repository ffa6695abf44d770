/** `weft run <task|file>`: plan (or take `--plan`), execute, verify, repair, record. */
import {
  formatError,
  defaultRoleKinds,
  createQueueRunner,
  loadTeamOffers,
  MAX_WORKFLOW_FILE_BYTES,
  outputFilePath,
  parseWorkflow,
  readInputFile,
  runResult,
  runTask,
  TOOL_FAILURE_MARK,
  toolCallCount,
  toolFailureWarning,
  WeftError,
  type QueueRunner,
  type RunSummary,
  type RunTaskResult,
  type TaskSummary,
  type ToolSet,
  type Workflow,
} from '../../internal.js';
import { budgetErrorJson, watchRunBudget } from '../budget-stop.js';
import { loadRunTools } from '../load-run-tools.js';
import { loadContext, loadModel, openStore, modelMaker } from '../context.js';
import { integerFlag, numberFlag } from '../flags.js';
import type { Output, Streams } from '../output.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createProgressView } from './progress.js';
import { streamSubtaskReplies } from './stream-subtask-replies.js';
import { isolationLimits } from '../distill/isolation-limits.js';
import { readTask } from '../read-task.js';
import { runChoicesFromFlags, runChoicesOptions } from '../run-choices.js';
import type { BudgetFlags } from '../budget-options.js';

export interface RunFlags extends BudgetFlags {
  readonly plan?: string;
  readonly model?: string;
  readonly home?: string;
  readonly strategy?: string;
  readonly concurrency?: string;
  readonly candidates?: string;
  readonly updateCandidates?: string;
  readonly injectMask?: string;
  readonly seed?: string;
  readonly maxAttempts?: string;
  readonly verify?: boolean;
  /** `--no-…` flags of Flow's prompt scope (docs/algorithms.md#prompt-scope): false when given. */
  readonly retryFeedback?: boolean;
  readonly plannerScope?: boolean;
  readonly neededBy?: boolean;
  readonly minimalUpdates?: boolean;
  readonly workers?: string;
  /** Team files offered to the planner (repeatable). */
  readonly team?: readonly string[];
  /** A tools file: its tools are offered to the planner and to roles that list them. */
  readonly tools?: string;
  readonly maxToolSteps?: string;
  readonly maxToolCalls?: string;
  /** A shell command run in the artifacts folder after the run: exit 0 = task success. */
  readonly check?: string;
  readonly checkTimeout?: string;
  /** A model (spec) that judges task success from the result. */
  readonly judgeModel?: string;
  readonly json?: boolean;
}

export async function runCommand(
  taskArgument: string | undefined,
  flags: RunFlags,
  output: Output,
  streams: Streams,
  signal: AbortSignal,
): Promise<number> {
  // Validate every flag before any work starts.
  const choices = runChoicesFromFlags({
    strategy: flags.strategy,
    concurrency: flags.concurrency,
    candidates: flags.candidates,
    updateCandidates: flags.updateCandidates,
    maxCalls: flags.maxCalls,
    maxTokens: flags.maxTokens,
    maxCostUsd: flags.maxCost,
    timeoutSeconds: flags.timeout,
    maxAttempts: flags.maxAttempts,
    maxToolSteps: flags.maxToolSteps,
    maxToolCalls: flags.maxToolCalls,
  });
  const maskProbability = numberFlag('inject-mask', flags.injectMask, { min: 0, max: 1 });
  const seed = integerFlag('seed', flags.seed, { min: 0 });
  if (seed !== undefined && maskProbability === undefined) {
    throw new WeftError('BAD_INPUT', '--seed only applies with --inject-mask', { location: { field: '--seed' } });
  }
  const taskCheck = taskCheckFromFlags(flags);
  const plan = flags.plan ? await readPlan(flags.plan) : undefined;
  if (!taskArgument && !plan)
    throw new WeftError('BAD_INPUT', 'Give a task (in words or as a file), or a plan with --plan', {
      location: { field: '<task>' },
    });
  if (taskArgument && plan) {
    // The run would do the plan's subtasks while its record and report named the other task.
    const planTask = plan.task.split('\n')[0]!.slice(0, 80);
    throw new WeftError(
      'BAD_INPUT',
      `Give a task or --plan, not both: the plan carries its own task ("${planTask}"). Drop the task to run the plan, or drop --plan to plan the task`,
      { location: { field: '<task>' } },
    );
  }
  const task = taskArgument ? (await readTask(taskArgument)).task : plan!.task;
  if (plan && flags.team && flags.team.length > 0) {
    throw new WeftError(
      'BAD_INPUT',
      '--team offers teams to the planner, and --plan skips planning: name the team files in the plan\'s roles ({"kind": "team", "team": "file"}) instead',
      { location: { field: '--team' } },
    );
  }

  const context = await loadContext(flags);
  const { home, config } = context;
  const { model, costOf } = await loadModel(flags.model, config);
  const teams =
    flags.team && flags.team.length > 0
      ? await loadTeamOffers(flags.team, process.cwd(), { createModel: modelMaker(config), runModel: model.id })
      : undefined;
  // A bad tools file (or plan tools section) is the user's input error: reported before any run exists. Closed
  // (MCP servers) at the end.
  const runTools = await loadRunTools(
    { toolsFile: flags.tools, planFile: flags.plan },
    signal,
    isolationLimits({}, config),
  );
  const toolSet: ToolSet | undefined = runTools.toolSet;
  // Reach Redis before opening anything, so an unreachable one fails fast and leaves no run behind.
  const queue: QueueRunner | undefined = flags.workers
    ? await createQueueRunner({ redisUrl: flags.workers, field: '--workers' }).catch(async (error: unknown) => {
        await toolSet?.close();
        throw error;
      })
    : undefined;
  const store = await openStore(context).catch(async (error: unknown) => {
    await queue?.close();
    await toolSet?.close();
    throw error;
  });
  const progress = createProgressView(streams.stderr, { live: streams.stderr.isTTY === true });
  const budgetWatch = watchRunBudget(progress.onEvent);
  const chosen = runChoicesOptions(choices);
  let result: RunTaskResult;
  try {
    result = await runTask({
      task,
      // On a terminal the live view shows the end of each subtask agent's reply as it streams.
      model: progress.onStream ? streamSubtaskReplies(model, progress.onStream) : model,
      store,
      home,
      costOf,
      signal,
      onEvent: budgetWatch.onEvent,
      run: {
        ...chosen.run,
        ...(flags.verify === false ? { verify: false } : {}),
        ...(maskProbability !== undefined ? { injectMask: { probability: maskProbability, seed: seed ?? 0 } } : {}),
      },
      budget: chosen.budget,
      prompts: {
        ...(flags.retryFeedback === false ? { retryFeedback: false } : {}),
        ...(flags.plannerScope === false ? { plannerScope: false } : {}),
        ...(flags.neededBy === false ? { neededBy: false } : {}),
        ...(flags.minimalUpdates === false ? { minimalUpdates: false } : {}),
      },
      tools: {
        available: toolSet?.tools ?? [],
        ...(chosen.maxToolSteps !== undefined ? { maxSteps: chosen.maxToolSteps } : {}),
        ...(runTools.toolsFile !== undefined ? { file: runTools.toolsFile } : {}),
        ...(runTools.planToolsFile !== undefined ? { planFile: runTools.planToolsFile } : {}),
      },
      ...(plan ? { plan, planFile: flags.plan! } : {}),
      ...(teams ? { teams } : {}),
      roles: { createModel: modelMaker(config), kinds: defaultRoleKinds() },
      base: process.cwd(),
      ...(queue ? { attemptRunner: queue.attemptRunner } : {}),
      ...(taskCheck ? { taskCheck } : {}),
    });
  } finally {
    progress.close();
    await queue?.close();
    await toolSet?.close();
    await store.close();
  }
  // A run a budget ended ends the command with BUDGET.
  const budgetError = budgetWatch.error(result.status, chosen.budget ?? {});
  if (output.json)
    output.document({ ...runJson(result), ...(budgetError ? { error: budgetErrorJson(budgetError) } : {}) });
  else printSummary(result, output, model.kind);
  if (budgetError) output.log(`weft: ${formatError(budgetError)}; the run is kept (weft show ${result.runId})`);
  printResumeHint(result, output);
  return result.status === 'completed' ? 0 : 1;
}

/** The `weft run --json` document: a task's accepted output, its file in the run folder, the run's result. */
export interface RunJson extends Omit<RunSummary, 'tasks'> {
  readonly tasks: readonly (Omit<TaskSummary, 'output'> & {
    readonly output: string | null;
    readonly outputFile: string | null;
  })[];
  /** The run folder, when known, with its report.md, artifacts/ and outputs/ (absolute paths). */
  readonly runDir?: string;
  readonly reportFile?: string;
  readonly artifactsDir?: string;
  readonly outputsDir?: string;
  /** The outputs of the sink subtasks (see run-result.ts); null when none has one. */
  readonly result: {
    readonly from: readonly string[];
    readonly text: string;
    readonly missing: readonly string[];
  } | null;
}

/**
 * The docs/contracts.md `weft run --json` shape, extended (never renamed): each task's `output` and `outputFile`
 * (relative to `runDir`), and the run's `result`.
 */
/** `--check`, `--judge-model` and `--check-timeout`, validated; undefined when no check was asked for. */
function taskCheckFromFlags(
  flags: Pick<RunFlags, 'check' | 'checkTimeout' | 'judgeModel'>,
): { command?: string; judgeModel?: string; timeoutMs?: number } | undefined {
  const seconds = numberFlag('check-timeout', flags.checkTimeout, { positive: true });
  if (flags.check === undefined && flags.judgeModel === undefined) {
    if (seconds !== undefined)
      throw new WeftError('BAD_INPUT', '--check-timeout only applies with --check or --judge-model', {
        location: { field: '--check-timeout' },
      });
    return undefined;
  }
  if (flags.check !== undefined && flags.check.trim() === '')
    throw new WeftError('BAD_INPUT', '--check needs a command', { location: { field: '--check' } });
  if (flags.judgeModel !== undefined && flags.judgeModel.trim() === '')
    throw new WeftError('BAD_INPUT', '--judge-model needs a model spec', { location: { field: '--judge-model' } });
  return {
    ...(flags.check !== undefined ? { command: flags.check } : {}),
    ...(flags.judgeModel !== undefined ? { judgeModel: flags.judgeModel } : {}),
    ...(seconds !== undefined ? { timeoutMs: Math.round(seconds * 1000) } : {}),
  };
}

export function runJson(summary: RunSummary & { readonly runDir?: string }): RunJson {
  const result = runResult(summary.tasks);
  // How many outputs the run folder keeps decides where each is (run-paths.ts outputFilePath).
  const accepted = summary.tasks.filter((t) => t.output !== undefined).length;
  return {
    runId: summary.runId,
    status: summary.status,
    planVersion: summary.planVersion,
    makespanMs: summary.makespanMs,
    calls: summary.calls,
    tokens: { input: summary.tokens.input, output: summary.tokens.output },
    costUsd: summary.costUsd,
    toolCalls: summary.toolCalls,
    toolCallsFailed: summary.toolCallsFailed,
    tasks: summary.tasks.map((t) => ({
      id: t.id,
      status: t.status,
      attempts: t.attempts,
      startMs: t.startMs,
      endMs: t.endMs,
      dependsOn: [...t.dependsOn],
      toolCalls: t.toolCalls,
      toolCallsFailed: t.toolCallsFailed,
      output: t.output ?? null,
      outputFile: t.output !== undefined ? outputFilePath(t.id, accepted) : null,
      ...(t.reason !== undefined ? { reason: t.reason } : {}),
      ...(t.retries !== undefined
        ? { retries: t.retries.map((r) => ({ attempt: r.attempt, feedback: [...r.feedback] })) }
        : {}),
    })),
    ...(summary.runDir !== undefined ? { runDir: summary.runDir, ...runPaths(summary.runDir) } : {}),
    result: result ? { from: [...result.from], text: result.text, missing: [...result.missing] } : null,
    ...(summary.planChanges ? { planChanges: summary.planChanges } : {}),
    ...(summary.taskCheck ? { taskCheck: summary.taskCheck } : {}),
  };
}

/** Results up to this many lines are printed whole after the summary; longer ones only on request. */
const SHORT_RESULT_LINES = 12;

/**
 * The run's result as the last thing `weft run` and `weft resume` print: what the user asked for, when it is short.
 * A long one (a generated program) would push the summary off the screen, so it is named with the command that
 * prints it (`weft show RUN --output SUBTASK`) and the folders that hold it.
 */
export function printResult(summary: RunSummary & { readonly runDir?: string }, output: Output): void {
  const result = runResult(summary.tasks);
  if (summary.runDir !== undefined) {
    const paths = runPaths(summary.runDir);
    if (existsSync(paths.artifactsDir)) output.text(`artifacts: ${paths.artifactsDir}/`);
    output.text(`outputs: ${paths.outputsDir}/`);
  }
  if (!result) return;
  const text = result.text.trimEnd();
  const lines = text.split('\n').length;
  const missing = result.missing.length > 0 ? `; not finished: ${result.missing.join(', ')}` : '';
  if (lines <= SHORT_RESULT_LINES) {
    output.text('');
    output.text(`result (from ${result.from.join(', ')}${missing}):`);
    output.text(text);
    return;
  }
  output.text(
    `result: ${lines} lines from ${result.from.join(', ')}${missing}; print one with weft show ${summary.runId} --output ${result.from[0]}`,
  );
}

/** Where a run folder keeps its report, its files and its subtasks' outputs (`weft run --json` names them too). */
export function runPaths(runDir: string): { reportFile: string; artifactsDir: string; outputsDir: string } {
  return {
    reportFile: join(runDir, 'report.md'),
    artifactsDir: join(runDir, 'artifacts'),
    outputsDir: join(runDir, 'outputs'),
  };
}

function printSummary(result: RunTaskResult, output: Output, kind: string): void {
  output.text(
    `run ${result.runId}: ${result.status}${result.reason ? ` (${result.reason})` : ''}${kind === 'real' ? '' : ` [${kind} model]`}`,
  );
  output.text(
    `plan v${result.planVersion}, ${result.tasks.filter((t) => t.status === 'completed').length}/${result.tasks.length} subtasks completed, ${(result.makespanMs / 1000).toFixed(2)} s`,
  );
  for (const task of result.tasks.filter((t) => t.reason !== undefined).slice(0, 5))
    output.text(`failed ${task.id}: ${task.reason}`);
  printToolWarnings(result, output);
  printTaskMeasures(result, output);
  output.text(
    `${result.calls} calls, ${result.tokens.input + result.tokens.output} tokens, $${result.costUsd.toFixed(4)}${result.toolCalls > 0 ? `, ${toolCallCount(result.toolCalls, result.toolCallsFailed)}` : ''}`,
  );
  output.text(`report: ${result.runDir}/report.md`);
  printResult(result, output);
}

/** After a cancelled run (Ctrl-C, SIGTERM): how to go on from where it stopped, on stderr like chat's hint. */
export function printResumeHint(summary: Pick<RunSummary, 'runId' | 'status'>, output: Output): void {
  if (summary.status === 'cancelled' || summary.status === 'interrupted')
    output.log(
      `run ${summary.runId} ${summary.status}; finished work is kept. Resume with: weft resume ${summary.runId}`,
    );
}

/** The independent checks of task success and how much the plan changed (`weft run`, `weft resume`, `weft show`). */
export function printTaskMeasures(summary: RunSummary, output: Output): void {
  const changes = summary.planChanges;
  if (changes) {
    const mean = changes.meanUpdateRatio === null ? '-' : `${(changes.meanUpdateRatio * 100).toFixed(0)} %`;
    output.text(
      `plan changed: ${changes.changedSubtasks} of ${changes.initialSubtasks} initial subtasks (changed ratio ${(changes.changedRatio * 100).toFixed(0)} %), mean per update ${mean}`,
    );
  }
  for (const check of summary.taskCheck?.checks ?? []) {
    const detail = check.detail.trim().split('\n').slice(-3).join(' | ');
    output.text(
      `task check (${check.method} ${check.by}): ${check.passed ? 'passed' : 'FAILED'}${detail ? ` — ${detail.length > 300 ? `${detail.slice(0, 299)}…` : detail}` : ''}`,
    );
  }
}

/**
 * The subtasks that completed although some of their tool calls failed (`weft run`, `weft resume`): their outputs
 * may claim what a failed call did not do, so they are named, like failed ones (at most 5; `weft show` has all).
 */
export function printToolWarnings(summary: RunSummary, output: Output): void {
  const marked = summary.tasks.flatMap((task) => {
    const warning = toolFailureWarning(task);
    return warning === undefined ? [] : [`${TOOL_FAILURE_MARK} ${task.id}: completed, but ${warning}`];
  });
  for (const line of marked.slice(0, 5)) output.text(line);
  if (marked.length > 5) output.text(`${TOOL_FAILURE_MARK} and ${marked.length - 5} more (weft show ${summary.runId})`);
}

/** A plan file (`--plan`, weft_run's `plan`), validated; it may carry its own tools section. */
export async function readPlan(file: string): Promise<Workflow> {
  // Bounded, and only a regular file: weft_run's client names it, and /dev/zero or a pipe would never end.
  const text = await readInputFile(file, 'plan file', MAX_WORKFLOW_FILE_BYTES);
  // A plan may carry its own tools section, which loadRunTools reads.
  const parsed = parseWorkflow(text, { file, sections: ['tools', 'allowHosts'] });
  if (!parsed.ok)
    throw new WeftError('PLAN_INVALID', 'The plan is not a valid workflow', {
      location: { file },
      issues: parsed.issues,
    });
  return parsed.workflow;
}
