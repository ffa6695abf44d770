/**
 * Drives a run once it exists in the store, new or resumed: plans if needed, executes, and records every event and
 * plan version, the artifacts, each accepted output (`outputs/<subtask>.md`), `plan-v<N>.json` and `report.md`
 * under `<home>/runs/<runId>/`. Everything the engine works with (metered model, budget gate, deadline, signals,
 * clock, durable log) is one engine context (runtime/engine-context.ts), built here and handed down.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbortError } from '../errors.js';
import { toWorkflowJson } from '../graph/index.js';
import type { Workflow } from '../graph/workflow.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { redactModelSpec } from '../llm/model-spec.js';
import { randomFrom } from '../llm/seeded-random.js';
import { traceRun } from '../llm/telemetry.js';
import { planTask } from '../plan/plan-task.js';
import { createEngineContext, type EngineContext } from '../runtime/engine-context.js';
import type { RunStore } from '../store/run-store.js';
import { runPaths, type RunPaths } from '../store/run-paths.js';
import { isTraceStore, newTraceId } from '../store/traces.js';
import { bindSimulatedTools } from '../tools/simulated-api.js';
import type { Tool } from '../tools/tool.js';
import { DEFAULT_MAX_TOOL_STEPS } from '../tools/tool-loop.js';
import { writeArtifacts } from './artifacts.js';
import type { AttemptRunnerFactory } from './attempt-runner.js';
import { candidateSummary } from './candidate-summary.js';
import { EventLog } from './event-log.js';
import type { WeftEvent, WorkflowDiffSummary } from './events.js';
import { execute, type ExecutionOptions, type ExecutionResult } from './execution.js';
import { extractArtifacts } from './extract-artifacts.js';
import { planHistory } from './plan-history.js';
import { recordPlanVersion } from './record-plan-version.js';
import { renderReport } from './report.js';
import type { ResumeState } from './resume-state.js';
import { roleKindRunners, type RoleKindEngine } from './role-kind.js';
import { runEvents } from './run-events.js';
import { subtaskOfCall } from './subtask-of-call.js';
import { runResult } from './run-result.js';
import { resolveRunSettings, type ResolvedRunSettings, type RunSettings } from './run-settings.js';
import { summarizeRun, type RunSummary } from './run-summary.js';
import { RunTools, toolArgsRedactor } from './run-tools.js';
import { runTrace } from './run-trace.js';
import { SubtaskOutputs } from './subtask-outputs.js';
import { runTaskChecks } from './task-check.js';

export interface RunTaskResult extends RunSummary {
  readonly runDir: string;
  readonly reason?: string;
  readonly workflow: Workflow | undefined;
}

/** Where a driven run begins: a plan to make, a given plan, or the state a resume folded from the log. */
export type RunBeginning =
  | { readonly kind: 'plan' }
  | { readonly kind: 'given'; readonly workflow: Workflow }
  | { readonly kind: 'resume'; readonly state: ResumeState; readonly workflow: Workflow | undefined };

type Emit = EventLog['emit'];

/** What driving a run needs beyond its settings: checked and resolved by runTask or resumeRun. */
export interface DriveInputs {
  readonly model: ChatModel;
  readonly store: RunStore;
  readonly home: string;
  readonly costOf?: (result: ChatResult, modelId?: string) => number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: WeftEvent) => void;
  readonly clock?: () => number;
  readonly attemptRunner?: AttemptRunnerFactory;
  readonly roleKinds: readonly RoleKindEngine[];
  readonly base?: string;
  readonly createModel: (spec: string) => Promise<ChatModel>;
  readonly tools: readonly Tool[];
  /** The judge model's spec with its secrets (the settings record it redacted). */
  readonly judgeModel?: string;
}

export interface DriveOptions {
  readonly runId: string;
  readonly task: string;
  readonly settings: RunSettings;
  readonly inputs: DriveInputs;
  /** Emits the run's first event of this process (`run-start` or `run-resume`). */
  readonly start: (emit: Emit) => void;
  readonly initial: RunBeginning;
}

/** Traced as one `invoke_workflow` span (llm/telemetry.ts); a resumed run is a new span. */
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

/** What the run records as it goes, besides its events: plan versions, artifacts written and refused. */
interface RunRecords {
  readonly versions: { version: number; cause: string; diff?: WorkflowDiffSummary }[];
  readonly artifacts: { taskId: string; path: string; bytes: number }[];
  readonly refused: { taskId: string; path: string; reason: string }[];
}

/** One driven run: its context, settings, folder and records, shared by the steps below. */
interface Drive {
  readonly runId: string;
  readonly task: string;
  readonly settings: ResolvedRunSettings;
  readonly inputs: DriveInputs;
  readonly context: EngineContext<EventLog>;
  readonly paths: RunPaths;
  readonly outputs: SubtaskOutputs;
  readonly records: RunRecords;
  readonly resumed: ResumeState | undefined;
}

async function driveRunTraced(options: DriveOptions): Promise<RunTaskResult> {
  const { runId, inputs } = options;
  const settings = resolveRunSettings(options.settings);
  const resumed = options.initial.kind === 'resume' ? options.initial.state : undefined;
  const paths = runPaths(inputs.home, runId);
  await mkdir(paths.artifacts, { recursive: true });
  const previous = resumed ? await runEvents(inputs.store, runId) : [];
  const context = createEngineContext({
    model: inputs.model,
    budget: settings.budget,
    ...(inputs.signal ? { signal: inputs.signal } : {}),
    ...(inputs.clock ? { clock: inputs.clock } : {}),
    ...(resumed ? { elapsedMs: resumed.lastAt, spent: resumed.spent, replay: resumed.replay } : {}),
    ...(inputs.costOf ? { costOf: inputs.costOf } : {}),
    redactToolArgs: toolArgsRedactor(inputs.tools),
    // A subtask's execute and verify calls name it in their events and spans.
    taskOf: subtaskOfCall,
    openLog: (now) => new EventLog(inputs.store, runId, now, inputs.onEvent, previous),
  });
  const drive: Drive = {
    runId,
    task: options.task,
    settings,
    inputs,
    context,
    paths,
    outputs: new SubtaskOutputs(paths.outputs),
    records: {
      versions: [...(resumed?.versions ?? [])],
      artifacts: [...(resumed?.artifacts ?? [])],
      refused: [...(resumed?.refused ?? [])],
    },
    resumed,
  };
  options.start(context.emit);
  // The run's first event makes it resumable; write it before any work.
  await context.log.sync();

  const parts = engineParts(drive);
  let ending: { status: RunSummary['status']; reason?: string; workflow?: Workflow };
  try {
    const result = await planAndExecute(drive, parts, options.initial);
    ending = {
      status: result.status,
      ...(result.reason !== undefined ? { reason: result.reason } : {}),
      workflow: result.workflow,
    };
  } catch (error) {
    ending = failedEnding(drive, error);
  }
  context.close();
  // Task success, judged apart from the run's verifier, on what the run left (not for a cancelled run).
  try {
    if (settings.taskCheck && ending.status !== 'cancelled' && !inputs.signal?.aborted) await checkTask(drive);
    return await finish(drive, ending);
  } finally {
    // A store failure before the outputs settled must not leave their writing thread behind in a long-lived process.
    await drive.outputs.close();
  }
}

/** How a run that threw ended: the deadline's reason, a cancel, or the error's message. */
function failedEnding(drive: Drive, error: unknown): { status: RunSummary['status']; reason: string } {
  const { deadline, signal } = drive.context;
  const deadlineReason = deadline.reason();
  if (deadlineReason !== undefined && !signal?.aborted) return { status: 'failed', reason: deadlineReason };
  if (isAbortError(error) || signal?.aborted) return { status: 'cancelled', reason: 'cancelled' };
  return { status: 'failed', reason: error instanceof Error ? error.message : String(error) };
}

/** Records a plan version: its event must be stored before the version, which a resume folds from the log. */
async function savePlan(
  drive: Drive,
  version: number,
  workflow: Workflow,
  cause: string,
  diff?: WorkflowDiffSummary,
): Promise<void> {
  drive.records.versions.push({ version, cause, ...(diff ? { diff } : {}) });
  await drive.context.log.sync();
  await recordPlanVersion(drive.inputs.store, drive.inputs.home, {
    runId: drive.runId,
    version,
    workflow: toWorkflowJson(workflow),
    cause,
    ...(diff ? { diff } : {}),
  });
}

/** The plan the run starts from (planned, given or folded), then the execution of it. */
async function planAndExecute(drive: Drive, parts: EngineParts, initial: RunBeginning): Promise<ExecutionResult> {
  const { context } = drive;
  let workflow: Workflow;
  let version = 1;
  if (initial.kind === 'given') {
    workflow = initial.workflow;
    context.emit({ type: 'plan-chosen', version: 1, index: 0, workflow: toWorkflowJson(workflow) });
    await savePlan(drive, 1, workflow, 'given plan');
  } else if (initial.kind === 'resume' && initial.workflow) {
    workflow = initial.workflow;
    version = initial.state.version;
  } else {
    workflow = await plan(drive);
    await savePlan(drive, 1, workflow, 'initial plan');
  }
  drive.outputs.planned(workflow.subtasks.length);
  return execute(executionOptions(drive, parts, workflow, version));
}

async function plan(drive: Drive): Promise<Workflow> {
  const { context, settings, inputs } = drive;
  const result = await planTask({
    task: drive.task,
    model: context.model,
    candidates: settings.candidates,
    ...(settings.plannerScope === false ? { scope: false } : {}),
    ...(settings.teams ? { teams: settings.teams } : {}),
    ...(inputs.tools.length > 0
      ? { tools: inputs.tools.map((tool) => ({ name: tool.name, description: tool.description })) }
      : {}),
    // Planning listens to both a cancel and the deadline; the executor tells them apart.
    ...(context.stopSignal ? { signal: context.stopSignal } : {}),
  });
  context.emit({ type: 'plan-candidates', purpose: 'plan', candidates: result.candidates.map(candidateSummary) });
  context.emit({
    type: 'plan-chosen',
    version: 1,
    index: result.chosenIndex,
    workflow: toWorkflowJson(result.workflow),
  });
  return result.workflow;
}

/** The run's tools, when it has any: simulated ones answered by the run's metered model. */
function runTools(drive: Drive): RunTools | undefined {
  const { context, inputs, settings, resumed } = drive;
  if (inputs.tools.length === 0) return undefined;
  return new RunTools({
    // A `kind: simulated` tool is answered by the run's model, through its meter: counted, budgeted, replayed.
    tools: bindSimulatedTools(inputs.tools, { model: context.model }),
    maxSteps: settings.maxToolSteps ?? DEFAULT_MAX_TOOL_STEPS,
    ...(context.budget.maxToolCalls !== undefined ? { maxToolCalls: context.budget.maxToolCalls } : {}),
    emit: context.emit,
    durability: context.log,
    refuse: (exceeded) => context.gate.refuse(exceeded),
    ...(resumed ? { replay: resumed.tools } : {}),
    scope: `run:${drive.runId}`,
  });
}

/** The models roles name by spec: one metered wrapper per spec, counted and replayed like the run model. */
function roleModels(drive: Drive): (spec: string) => Promise<ChatModel> {
  const made = new Map<string, Promise<ChatModel>>();
  return (spec) => {
    let found = made.get(spec);
    if (!found) {
      found = drive.inputs.createModel(spec).then((model) => drive.context.metered(model));
      made.set(spec, found);
    }
    return found;
  };
}

/** What executes the subtasks besides the model: the attempt runner (queue workers), role-kind engines, tools. */
interface EngineParts {
  readonly runAttempt: ReturnType<AttemptRunnerFactory> | undefined;
  readonly runners: ExecutionOptions['runners'];
  readonly tools: RunTools | undefined;
}

function engineParts(drive: Drive): EngineParts {
  const { context, settings, inputs, resumed, runId } = drive;
  const replay = resumed ? { replay: resumed.replay } : {};
  return {
    tools: runTools(drive),
    runAttempt: inputs.attemptRunner?.({
      runId,
      modelId: inputs.model.id,
      budget: context.gate,
      recordCall: context.recordRemoteCall,
      ...replay,
    }),
    runners: roleKindRunners(inputs.roleKinds, {
      runId,
      base: settings.teamBase ?? inputs.base,
      model: context.model,
      modelFor: roleModels(drive),
      store: inputs.store,
      ...replay,
      emit: context.emit,
    }),
  };
}

function executionOptions(drive: Drive, parts: EngineParts, workflow: Workflow, version: number): ExecutionOptions {
  const { context, settings, resumed, runId } = drive;
  const { runAttempt, runners, tools } = parts;
  const mask = settings.injectMask;
  return {
    workflow,
    version,
    model: context.model,
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
    ...(context.signal ? { signal: context.signal } : {}),
    ...(context.deadline.signal ? { deadline: context.deadline.signal } : {}),
    ...(resumed ? { failures: resumed.failures, rounds: resumed.rounds, earlier: resumed.earlier } : {}),
    durability: context.log,
    emit: context.emit,
    ...(runAttempt ? { runAttempt } : {}),
    runners,
    ...(tools ? { tools } : {}),
    onAccepted: (taskId, output) => acceptOutput(drive, taskId, output),
    onPlanVersion: (next, revised, cause, diff) => savePlan(drive, next, revised, cause, diff),
  };
}

/** Written as soon as it is accepted, so a long run shows its finished parts; the end of the run settles the folder. */
async function acceptOutput(drive: Drive, taskId: string, output: string): Promise<void> {
  const { records, context } = drive;
  await drive.outputs.write(taskId, output);
  const found = extractArtifacts(output);
  if (found.length === 0) return;
  const written = await writeArtifacts(drive.paths.artifacts, found);
  for (const file of written.written) {
    records.artifacts.push({ taskId, ...file });
    context.emit({ type: 'artifact', taskId, path: file.path, bytes: file.bytes });
  }
  for (const file of written.refused) {
    records.refused.push({ taskId, ...file });
    context.emit({ type: 'artifact-refused', taskId, path: file.path, reason: file.reason });
  }
}

/** The accepted outputs of a summary, as the outputs folder keeps them. */
function acceptedOutputs(summary: RunSummary): { id: string; output: string }[] {
  return summary.tasks.flatMap((task) => (task.output !== undefined ? [{ id: task.id, output: task.output }] : []));
}

async function checkTask(drive: Drive): Promise<void> {
  const { context, settings, inputs } = drive;
  if (!settings.taskCheck) return;
  const sofar = summarizeRun(drive.runId, context.log.events);
  // The check reads the run folder as the run leaves it: outputs/ holds the accepted outputs and nothing stale.
  await drive.outputs.settle(acceptedOutputs(sofar));
  await runTaskChecks({
    settings: { ...settings.taskCheck, ...(inputs.judgeModel !== undefined ? { judgeModel: inputs.judgeModel } : {}) },
    task: drive.task,
    result: runResult(sofar.tasks)?.text ?? '',
    runDir: drive.paths.dir,
    artifactsDir: drive.paths.artifacts,
    artifacts: drive.records.artifacts.map((artifact) => artifact.path),
    // The judge's calls are the run's too: counted, priced and refused by its budget like the run model's.
    createModel: (spec) => inputs.createModel(spec).then((model) => context.metered(model)),
    ...(inputs.signal ? { signal: inputs.signal } : {}),
    emit: context.emit,
  });
}

/** The run's last events, its status, the settled outputs, the report and the trace. */
async function finish(
  drive: Drive,
  ending: { status: RunSummary['status']; reason?: string; workflow?: Workflow },
): Promise<RunTaskResult> {
  const { context, inputs, runId } = drive;
  const { meter } = context;
  const { status, reason } = ending;
  context.emit({
    type: 'usage',
    calls: meter.calls,
    tokens: { input: meter.inputTokens, output: meter.outputTokens },
    costUsd: meter.costUsd,
  });
  context.emit({ type: 'run-end', status, ...(reason !== undefined ? { reason } : {}) });
  await context.log.close();
  await inputs.store.setStatus(runId, status);

  const events = context.log.events;
  const summary = summarizeRun(runId, events);
  // From the log, not from what this process accepted: a resumed run rewrites what the earlier process accepted.
  await drive.outputs.settle(acceptedOutputs(summary));
  await writeFile(
    drive.paths.report,
    renderReport({
      summary,
      workflow: ending.workflow,
      task: drive.task,
      model: redactModelSpec(inputs.model.id),
      modelKind: inputs.model.kind,
      ...drive.records,
      teams: events.flatMap((event) => (event.type === 'team' ? [event] : [])),
      toolEvents: events.filter((event) => event.type === 'tool-call' || event.type === 'tool-result'),
      history: planHistory(events, []),
    }),
  );
  // A store without traces skips this; a trace that cannot be saved does not change how the run ended.
  if (isTraceStore(inputs.store)) {
    const trace = runTrace({
      traceId: newTraceId(),
      runId,
      task: drive.task,
      model: redactModelSpec(inputs.model.id),
      ...(drive.settings.toolsFile !== undefined ? { toolsPath: drive.settings.toolsFile } : {}),
      summary: { ...summary, ...(reason !== undefined ? { reason } : {}) },
      events,
    });
    if (trace) await inputs.store.saveTrace(trace).catch(() => undefined);
  }
  return {
    ...summary,
    runDir: drive.paths.dir,
    workflow: ending.workflow,
    ...(reason !== undefined ? { reason } : {}),
  };
}
