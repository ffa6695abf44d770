/**
 * A whole run: plan (unless a plan is given), execute, record every event and plan version in the store, write
 * artifacts, each accepted output (`outputs/<subtask>.md`), `plan-v<N>.json` and `report.md` under
 * `<home>/runs/<runId>/`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isAbortError, WeftError } from '../errors.js';
import { integerOption } from '../runtime/integer-option.js';
import { toWorkflowJson } from '../graph/index.js';
import type { Workflow } from '../graph/workflow.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { redactModelSpec } from '../llm/model-spec.js';
import { createModel } from '../llm/resolve-model.js';
import { randomFrom } from '../llm/seeded-random.js';
import { traceRun } from '../llm/telemetry.js';
import { anySignal } from '../llm/timeout.js';
import { planTask } from '../plan/plan-task.js';
import type { TeamOffer } from '../plan/team-offer.js';
import type { RunStore } from '../store/run-store.js';
import { isTraceStore, newTraceId } from '../store/traces.js';
import type { ResumeState } from './resume-state.js';
import { resolveRunSettings, type RunSettings, type TaskCheckSettings } from './run-settings.js';
import { newRunId } from '../store/run-id.js';
import { currentOwner } from '../store/run-owner.js';
import { runPaths } from '../store/run-paths.js';
import { writeArtifacts } from './artifacts.js';
import { EventLog } from './event-log.js';
import { candidateSummary } from './candidate-summary.js';
import type { WeftEvent, WorkflowDiffSummary } from './events.js';
import { execute, type ExecutionStrategy } from './execution.js';
import {
  checkOfferKinds,
  checkPlanKinds,
  checkPlanRoles,
  checkRoleKinds,
  preparePlan,
  roleKindRunners,
  type RoleKindEngine,
} from './role-kind.js';
import { extractArtifacts } from './extract-artifacts.js';
import type { AttemptRunnerFactory } from './attempt-runner.js';
import { budgetGate, createMeter, type Budget } from '../runtime/budget.js';
import { meteredModel, recordRemoteCall } from '../runtime/metered-model.js';
import { recordPlanVersion } from './record-plan-version.js';
import { planHistory } from './plan-history.js';
import { runResult } from './run-result.js';
import { runTaskChecks } from './task-check.js';
import { renderReport } from './report.js';
import { summarizeRun, type RunSummary } from './run-summary.js';
import { runTrace } from './run-trace.js';
import { SubtaskOutputs } from './subtask-outputs.js';
import { startDeadline } from '../runtime/deadline.js';
import { bindSimulatedTools } from '../tools/simulated-api.js';
import type { Tool } from '../tools/tool.js';
import { DEFAULT_MAX_TOOL_STEPS } from '../tools/tool-loop.js';
import { checkRoleTools, RunTools, toolArgsRedactor } from './run-tools.js';
import { runEvents } from './run-events.js';

export interface RunTaskOptions {
  readonly task: string;
  readonly model: ChatModel;
  readonly store: RunStore;
  /** The Weft home (`.weft`); the run directory is `<home>/runs/<runId>`. */
  readonly home: string;
  /** Run this workflow instead of planning. */
  readonly plan?: Workflow;
  readonly candidates?: number;
  readonly strategy?: ExecutionStrategy;
  readonly concurrency?: number;
  readonly budget?: Budget;
  readonly maxAttempts?: number;
  /** Candidate revisions per plan update (default: `candidates`). */
  readonly updateCandidates?: number;
  readonly verify?: boolean;
  /** Flow's prompt scope (docs/algorithms.md#prompt-scope); each on unless false. See RunSettings. */
  readonly retryFeedback?: boolean;
  readonly plannerScope?: boolean;
  readonly neededBy?: boolean;
  readonly minimalUpdates?: boolean;
  /**
   * Fault injection (docs/algorithms.md#fault-injection): each subtask's first result is replaced by "none" with this
   * probability.
   */
  readonly injectMask?: { readonly probability: number; readonly seed: number };
  /** USD of one call; defaults to free (the CLI passes the price table). */
  readonly costOf?: (result: ChatResult, modelId?: string) => number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: WeftEvent) => void;
  readonly runId?: string;
  /** Monotonic milliseconds; injectable for tests. */
  readonly clock?: () => number;
  /** Runs `llm` subtask attempts somewhere else, e.g. on queue workers (default: in-process). Other kinds stay here. */
  readonly attemptRunner?: AttemptRunnerFactory;
  /**
   * The engines of role kinds besides `llm` (run/role-kind.ts), e.g. the team engine: the library's
   * defaultRoleKinds(). Without one for a kind, a plan with a role of that kind is refused before the run starts.
   */
  readonly roleKinds?: readonly RoleKindEngine[];
  /**
   * The folder relative file names resolve against: `planFile` when relative, and a plan's files (a team role's
   * `team:`) when there is no `planFile`. The CLI passes its working directory; without it such names are refused.
   */
  readonly base?: string;
  /** The file `plan` was read from: team roles' files (`team:`) resolve against its folder. */
  readonly planFile?: string;
  /**
   * Makes the model a role names by spec, e.g. a team file's agent or ranker (its calls are metered like the
   * run's own). Default: `createModel` of src/llm with no retries or timeouts; the CLI passes its resilient one.
   */
  readonly createModel?: (spec: string) => Promise<ChatModel>;
  /** Agent teams the planner may give subtasks to (`weft run <task> --team file`); see loadTeamOffers. */
  readonly teams?: readonly TeamOffer[];
  /**
   * Tools the run's agents may call (e.g. `loadToolsFile(...).tools`): a role lists the ones its agent gets, and the
   * planner is told which exist. The caller closes their ToolSet after the run.
   */
  readonly tools?: readonly Tool[];
  /** Model calls per tool loop that may ask for tools (default 8). */
  readonly maxToolSteps?: number;
  /** The tools file `tools` came from, recorded so that `weft resume` loads the same one. */
  readonly toolsFile?: string;
  /** The plan file whose `tools:` section gave some of `tools`, recorded likewise. */
  readonly planToolsFile?: string;
  /**
   * Task success judged apart from the verifier once the run is done (docs/algorithms.md#fault-injection): a shell
   * command run in the artifacts folder (exit 0 = success) and/or a judge model; each with a deadline (default 120 s).
   */
  readonly taskCheck?: { readonly command?: string; readonly judgeModel?: string; readonly timeoutMs?: number };
}

export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;

function taskCheckSettings(check: NonNullable<RunTaskOptions['taskCheck']>): TaskCheckSettings {
  const timeoutMs = check.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs))
    throw new WeftError('BAD_INPUT', `Expected a check timeout > 0 ms, got ${timeoutMs}`, {
      location: { field: 'taskCheck.timeoutMs' },
    });
  if (check.command !== undefined && check.command.trim() === '')
    throw new WeftError('BAD_INPUT', 'The check command is empty', { location: { field: 'taskCheck.command' } });
  if (check.command === undefined && check.judgeModel === undefined)
    throw new WeftError('BAD_INPUT', 'A task check needs a command or a judge model', {
      location: { field: 'taskCheck' },
    });
  return {
    ...(check.command !== undefined ? { command: check.command } : {}),
    // Recorded without a password in its URL, like the run's model; the run itself uses the spec as given.
    ...(check.judgeModel !== undefined ? { judgeModel: redactModelSpec(check.judgeModel) } : {}),
    timeoutMs,
  };
}

export interface RunTaskResult extends RunSummary {
  readonly runDir: string;
  readonly reason?: string;
  readonly workflow: Workflow | undefined;
}

/** How a run makes the model a role names: the caller's `createModel`, else plain `createModel` of src/llm. */
export function modelMakerOf(options: Pick<RunTaskOptions, 'createModel'>): (spec: string) => Promise<ChatModel> {
  return options.createModel ?? ((spec) => createModel(spec));
}

/** The folder of the plan file, when there is one. */
function planFolder(options: Pick<RunTaskOptions, 'planFile' | 'base'>): string | undefined {
  const file = options.planFile;
  if (file === undefined) return undefined;
  if (isAbsolute(file)) return dirname(file);
  if (options.base === undefined) {
    throw new WeftError(
      'BAD_INPUT',
      `The plan file ${JSON.stringify(file)} is relative, and no base folder was given to resolve it against`,
      { location: { field: 'planFile' } },
    );
  }
  return dirname(resolve(options.base, file));
}

export async function runTask(options: RunTaskOptions): Promise<RunTaskResult> {
  const runId = options.runId ?? newRunId();
  const roleKinds = options.roleKinds ?? [];
  checkRoleKinds(roleKinds);
  const teamBase = planFolder(options);
  if (options.plan && options.teams && options.teams.length > 0) {
    throw new WeftError(
      'BAD_INPUT',
      'Teams are offered to the planner, and this run has a plan: name the team files in the plan\'s roles ({"kind": "team", "team": "file"}) instead',
      { location: { field: 'teams' } },
    );
  }
  const base = teamBase ?? options.base;
  if (options.plan) checkPlanKinds(options.plan, roleKinds, options.planFile);
  checkToolOptions(options);
  if (options.plan) checkRoleTools(options.plan, options.tools ?? [], options.planFile);
  checkOfferKinds(options.teams, roleKinds);
  // Saved plan versions name their files absolutely, so a version runs again (or resumes) from any folder.
  const plan = options.plan ? preparePlan(options.plan, roleKinds, base) : undefined;
  // A role file that is missing or invalid, or names a model that cannot be made, is the user's input error:
  // report it before any run exists.
  if (plan)
    await checkPlanRoles(plan, roleKinds, {
      base,
      models: { createModel: modelMakerOf(options), runModel: options.model.id },
    });
  const settings = resolveRunSettings({
    ...(options.strategy !== undefined ? { strategy: options.strategy } : {}),
    ...(options.candidates !== undefined ? { candidates: options.candidates } : {}),
    ...(options.updateCandidates !== undefined ? { updateCandidates: options.updateCandidates } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
    plan: options.plan ? 'given' : 'generated',
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.verify !== undefined ? { verify: options.verify } : {}),
    ...(options.retryFeedback !== undefined ? { retryFeedback: options.retryFeedback } : {}),
    ...(options.plannerScope !== undefined ? { plannerScope: options.plannerScope } : {}),
    ...(options.neededBy !== undefined ? { neededBy: options.neededBy } : {}),
    ...(options.minimalUpdates !== undefined ? { minimalUpdates: options.minimalUpdates } : {}),
    ...(options.injectMask ? { injectMask: options.injectMask } : {}),
    ...(teamBase !== undefined ? { teamBase } : {}),
    ...(options.teams && options.teams.length > 0 ? { teams: options.teams } : {}),
    ...(options.maxToolSteps !== undefined ? { maxToolSteps: options.maxToolSteps } : {}),
    ...(options.toolsFile !== undefined ? { toolsFile: options.toolsFile } : {}),
    ...(options.planToolsFile !== undefined ? { planToolsFile: options.planToolsFile } : {}),
    ...(options.taskCheck ? { taskCheck: taskCheckSettings(options.taskCheck) } : {}),
  });
  // The spec as stored and shown: a key in its base URL is never written down (resume asks for --model again).
  await options.store.createRun({
    runId,
    task: options.task,
    model: redactModelSpec(options.model.id),
    options: { ...settings },
    owner: currentOwner(),
  });
  return driveRun({
    runId,
    task: options.task,
    settings,
    options,
    start: (emit) =>
      emit({
        type: 'run-start',
        runId,
        task: options.task,
        model: redactModelSpec(options.model.id),
        strategy: settings.strategy,
        options: { ...settings },
      }),
    initial: plan ? { kind: 'given', workflow: { ...plan, task: options.task } } : { kind: 'plan' },
  });
}

/** Where a driven run begins: a plan to make, a given plan, or the state a resume folded from the log. */
export type RunBeginning =
  | { readonly kind: 'plan' }
  | { readonly kind: 'given'; readonly workflow: Workflow }
  | { readonly kind: 'resume'; readonly state: ResumeState; readonly workflow: Workflow | undefined };

export interface DriveOptions {
  readonly runId: string;
  readonly task: string;
  readonly settings: RunSettings;
  readonly options: Omit<RunTaskOptions, 'task'>;
  readonly start: (emit: EventLog['emit']) => void;
  readonly initial: RunBeginning;
}

/**
 * Plans if needed, executes, and records everything: shared by new runs and resumed ones. Traced as one
 * `invoke_workflow` span (llm/telemetry.ts); a resumed run is a new span.
 */
export function driveRun(drive: DriveOptions): Promise<RunTaskResult> {
  return traceRun(
    {
      runId: drive.runId,
      task: drive.task,
      strategy: resolveRunSettings(drive.settings).strategy,
      resumed: drive.initial.kind === 'resume',
    },
    () => driveRunTraced(drive),
    (result) => ({
      status: result.status,
      ...(result.reason !== undefined ? { reason: result.reason } : {}),
      calls: result.calls,
      inputTokens: result.tokens.input,
      outputTokens: result.tokens.output,
      costUsd: result.costUsd,
    }),
  );
}

async function driveRunTraced(drive: DriveOptions): Promise<RunTaskResult> {
  const { runId, options } = drive;
  const settings = resolveRunSettings(drive.settings);
  const resumed = drive.initial.kind === 'resume' ? drive.initial.state : undefined;
  const clock = options.clock ?? (() => performance.now());
  const startedAt = clock();
  const offset = resumed?.lastAt ?? 0;
  const now = () => Math.round((offset + clock() - startedAt) * 1000) / 1000;
  const paths = runPaths(options.home, runId);
  await mkdir(paths.artifacts, { recursive: true });
  const outputFiles = new SubtaskOutputs(paths.outputs);

  const log = new EventLog(
    options.store,
    runId,
    now,
    options.onEvent,
    resumed ? await runEvents(options.store, runId) : [],
  );
  const emit = (event: Parameters<EventLog['emit']>[0]) => log.emit(event);
  drive.start(emit);
  // The run's first event makes it resumable; write it before any work.
  await log.sync();

  const meter = resumed ? { ...resumed.spent } : createMeter();
  const budget = settings.budget;
  const costOf = options.costOf ?? (() => 0);
  const gate = budgetGate({ budget, meter, now, emit });
  const deadline = startDeadline(budget.maxWallMs, now(), gate);
  // Planning listens to both a cancel and the deadline; the executor tells them apart.
  const planSignal = anySignal(options.signal, deadline.signal);
  const toolList = options.tools ?? [];
  const redactArgs = toolArgsRedactor(toolList);
  const model = meteredModel(
    options.model,
    { budget, meter, now, costOf, emit, redactToolArgs: redactArgs, ...(resumed ? { replay: resumed.replay } : {}) },
    gate,
  );
  // A `kind: simulated` tool is answered by the run's model, through its meter: counted, budgeted, replayed.
  const boundTools = bindSimulatedTools(toolList, { model });
  const runTools =
    toolList.length > 0
      ? new RunTools({
          tools: boundTools,
          maxSteps: settings.maxToolSteps ?? DEFAULT_MAX_TOOL_STEPS,
          ...(budget.maxToolCalls !== undefined ? { maxToolCalls: budget.maxToolCalls } : {}),
          emit,
          durability: log,
          refuse: (exceeded) => gate.refuse(exceeded),
          ...(resumed ? { replay: resumed.tools } : {}),
        })
      : undefined;
  const runAttempt = options.attemptRunner?.({
    runId,
    modelId: options.model.id,
    budget: gate,
    recordCall: (call) => recordRemoteCall(call, { meter, costOf, emit }),
    ...(resumed ? { replay: resumed.replay } : {}),
  });
  const roleModels = new Map<string, Promise<ChatModel>>();
  const runners = roleKindRunners(options.roleKinds ?? [], {
    runId,
    base: settings.teamBase ?? options.base,
    model,
    modelFor: (spec) => {
      // One metered wrapper per spec: its calls count in the run like the run model's, and replay the same way.
      let found = roleModels.get(spec);
      if (!found) {
        found = modelMakerOf(options)(spec).then((base) =>
          meteredModel(
            base,
            { budget, meter, now, costOf, emit, ...(resumed ? { replay: resumed.replay } : {}) },
            gate,
          ),
        );
        roleModels.set(spec, found);
      }
      return found;
    },
    store: options.store,
    ...(resumed ? { replay: resumed.replay } : {}),
    emit,
  });
  const versions: { version: number; cause: string; diff?: WorkflowDiffSummary }[] = [...(resumed?.versions ?? [])];
  const artifacts: { taskId: string; path: string; bytes: number }[] = [...(resumed?.artifacts ?? [])];
  const refused: { taskId: string; path: string; reason: string }[] = [...(resumed?.refused ?? [])];
  const savePlan = async (version: number, workflow: Workflow, cause: string, diff?: WorkflowDiffSummary) => {
    versions.push({ version, cause, ...(diff ? { diff } : {}) });
    // The event that announces the version is the truth a resume folds; it must land first.
    await log.sync();
    await recordPlanVersion(options.store, options.home, {
      runId,
      version,
      workflow: toWorkflowJson(workflow),
      cause,
      ...(diff ? { diff } : {}),
    });
  };

  let status: RunSummary['status'];
  let reason: string | undefined;
  let finalWorkflow: Workflow | undefined;
  try {
    let initial: Workflow;
    let version = 1;
    if (drive.initial.kind === 'given') {
      initial = drive.initial.workflow;
      emit({ type: 'plan-chosen', version: 1, index: 0, workflow: toWorkflowJson(initial) });
      await savePlan(1, initial, 'given plan');
    } else if (drive.initial.kind === 'resume' && drive.initial.workflow) {
      initial = drive.initial.workflow;
      version = drive.initial.state.version;
    } else {
      initial = await plan(
        {
          ...options,
          task: drive.task,
          candidates: settings.candidates,
          plannerScope: settings.plannerScope,
          ...(settings.teams ? { teams: settings.teams } : {}),
          ...(planSignal ? { signal: planSignal } : {}),
        },
        model,
        emit,
      );
      await savePlan(1, initial, 'initial plan');
    }
    const mask = settings.injectMask;
    const result = await execute({
      workflow: initial,
      version,
      model,
      strategy: settings.strategy,
      ...(settings.concurrency != null ? { concurrency: settings.concurrency } : {}),
      maxAttempts: settings.maxAttempts,
      updateCandidates: settings.updateCandidates,
      verify: settings.verify,
      retryFeedback: settings.retryFeedback,
      neededBy: settings.neededBy,
      minimalUpdates: settings.minimalUpdates,
      runId,
      ...(mask
        ? {
            mask: (taskId: string, attempt: number) =>
              attempt === 1 && randomFrom(mask.seed, 'mask', taskId)() < mask.probability,
          }
        : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(deadline.signal ? { deadline: deadline.signal } : {}),
      ...(resumed ? { failures: resumed.failures, rounds: resumed.rounds, earlier: resumed.earlier } : {}),
      durability: log,
      emit,
      ...(runAttempt ? { runAttempt } : {}),
      runners,
      ...(runTools ? { tools: runTools } : {}),
      onAccepted: async (taskId, output) => {
        // Written as soon as it is accepted, so a long run shows its finished parts; the end of the run settles the folder.
        await outputFiles.write(taskId, output);
        const found = extractArtifacts(output);
        if (found.length === 0) return;
        const written = await writeArtifacts(paths.artifacts, found);
        for (const file of written.written) {
          artifacts.push({ taskId, ...file });
          emit({ type: 'artifact', taskId, path: file.path, bytes: file.bytes });
        }
        for (const file of written.refused) {
          refused.push({ taskId, ...file });
          emit({ type: 'artifact-refused', taskId, path: file.path, reason: file.reason });
        }
      },
      onPlanVersion: (next, workflow, cause, diff) => savePlan(next, workflow, cause, diff),
    });
    status = result.status;
    reason = result.reason;
    finalWorkflow = result.workflow;
  } catch (error) {
    if (deadline.reason() !== undefined && !options.signal?.aborted) {
      status = 'failed';
      reason = deadline.reason();
    } else if (isAbortError(error) || options.signal?.aborted) {
      status = 'cancelled';
      reason = 'cancelled';
    } else {
      status = 'failed';
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  deadline.clear();
  // Task success, judged apart from the run's verifier, on what the run left (not for a cancelled run).
  if (settings.taskCheck && status !== 'cancelled' && !options.signal?.aborted) {
    const sofar = summarizeRun(runId, log.events);
    // The check reads the run folder as the run leaves it: outputs/ holds the accepted outputs and nothing stale.
    await outputFiles.settle(
      sofar.tasks.flatMap((task) => (task.output !== undefined ? [{ id: task.id, output: task.output }] : [])),
    );
    const judgeModel = options.taskCheck?.judgeModel;
    await runTaskChecks({
      settings: { ...settings.taskCheck, ...(judgeModel !== undefined ? { judgeModel } : {}) },
      task: drive.task,
      result: runResult(sofar.tasks)?.text ?? '',
      runDir: paths.dir,
      artifactsDir: paths.artifacts,
      artifacts: artifacts.map((artifact) => artifact.path),
      // The judge's calls are the run's too: counted, priced and refused by its budget like the run model's.
      createModel: (spec) =>
        modelMakerOf(options)(spec).then((base) =>
          meteredModel(
            base,
            { budget, meter, now, costOf, emit, ...(resumed ? { replay: resumed.replay } : {}) },
            gate,
          ),
        ),
      ...(options.signal ? { signal: options.signal } : {}),
      emit,
    });
  }
  emit({
    type: 'budget',
    calls: meter.calls,
    tokens: { input: meter.inputTokens, output: meter.outputTokens },
    costUsd: meter.costUsd,
  });
  emit({ type: 'run-end', status, ...(reason !== undefined ? { reason } : {}) });
  await log.close();
  await options.store.setStatus(runId, status);

  const summary = summarizeRun(runId, log.events);
  // From the log, not from what this process accepted: a resumed run rewrites what the earlier process accepted.
  await outputFiles.settle(
    summary.tasks.flatMap((task) => (task.output !== undefined ? [{ id: task.id, output: task.output }] : [])),
  );
  await writeFile(
    paths.report,
    renderReport({
      summary,
      workflow: finalWorkflow,
      task: drive.task,
      model: redactModelSpec(options.model.id),
      modelKind: options.model.kind,
      versions,
      artifacts,
      refused,
      teams: log.events.flatMap((event) => (event.type === 'team' ? [event] : [])),
      toolEvents: log.events.filter((event) => event.type === 'tool-call' || event.type === 'tool-result'),
      history: planHistory(log.events, []),
    }),
  );
  // A store without traces skips this; a trace that cannot be saved does not change how the run ended.
  if (isTraceStore(options.store)) {
    const trace = runTrace({
      traceId: newTraceId(),
      runId,
      task: drive.task,
      model: redactModelSpec(options.model.id),
      ...(settings.toolsFile !== undefined ? { toolsPath: settings.toolsFile } : {}),
      summary: { ...summary, ...(reason !== undefined ? { reason } : {}) },
      events: log.events,
    });
    if (trace) await options.store.saveTrace(trace).catch(() => undefined);
  }
  return { ...summary, runDir: paths.dir, workflow: finalWorkflow, ...(reason !== undefined ? { reason } : {}) };
}

/** The tool options' ranges, before any run exists. */
function checkToolOptions(options: Pick<RunTaskOptions, 'maxToolSteps' | 'budget' | 'tools'>): void {
  if (options.maxToolSteps !== undefined) integerOption(options.maxToolSteps, 'maxToolSteps', { min: 1 });
  const calls = options.budget?.maxToolCalls;
  if (calls !== undefined) integerOption(calls, 'maxToolCalls', { min: 0 });
  const seen = new Set<string>();
  for (const tool of options.tools ?? []) {
    if (seen.has(tool.name))
      throw new WeftError('BAD_INPUT', `Two tools are named "${tool.name}"`, { location: { field: 'tools' } });
    seen.add(tool.name);
  }
}

async function plan(
  options: RunTaskOptions & { readonly candidates: number },
  model: ChatModel,
  emit: EventLog['emit'],
): Promise<Workflow> {
  const result = await planTask({
    task: options.task,
    model,
    candidates: options.candidates,
    ...(options.plannerScope === false ? { scope: false } : {}),
    ...(options.teams ? { teams: options.teams } : {}),
    ...(options.tools && options.tools.length > 0
      ? { tools: options.tools.map((tool) => ({ name: tool.name, description: tool.description })) }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  emit({ type: 'plan-candidates', purpose: 'plan', candidates: result.candidates.map(candidateSummary) });
  emit({ type: 'plan-chosen', version: 1, index: result.chosenIndex, workflow: toWorkflowJson(result.workflow) });
  return result.workflow;
}
