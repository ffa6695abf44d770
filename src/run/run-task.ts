/**
 * A new run: checks its options, records it in the store, then drives it (drive-run.ts): plan (unless a plan is
 * given), execute, and record every event, plan version, output, artifact and the report under
 * `<home>/runs/<runId>/`. The options come in groups as docs/library.md explains a run.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import type { Workflow } from '../graph/workflow.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import { redactModelSpec } from '../llm/model-spec.js';
import { createModel } from '../llm/resolve-model.js';
import type { TeamOffer } from '../plan/team-offer.js';
import type { Budget } from '../runtime/budget.js';
import type { RunStore } from '../store/run-store.js';
import { newRunId } from '../store/run-id.js';
import { currentOwner } from '../store/run-owner.js';
import type { Tool } from '../tools/tool.js';
import type { AttemptRunnerFactory } from './attempt-runner.js';
import { driveRun, type DriveInputs, type RunTaskResult } from './drive-run.js';
import type { WeftEvent } from './events.js';
import type { ExecutionStrategy } from './execution.js';
import { runHandle, type RunHandle } from './run-handle.js';
import { runHome } from './run-home.js';
import {
  checkOfferKinds,
  checkPlanKinds,
  checkPlanRoles,
  checkRoleKinds,
  preparePlan,
  type RoleKindEngine,
} from './role-kind.js';
import { resolveRunSettings, type TaskCheckSettings } from './run-settings.js';
import { checkRoleTools } from './run-tools.js';

export type { RunTaskResult } from './drive-run.js';
export type { RunHandle, RunEvents } from './run-handle.js';

/** How the run executes its plan (docs/algorithms.md): each absent one takes its default. */
export interface RunExecution {
  /** Plan candidates, the best of which is run (default 1). */
  readonly candidates?: number;
  /** Candidate revisions per plan update (default: `candidates`). */
  readonly updateCandidates?: number;
  readonly strategy?: ExecutionStrategy;
  /** Subtasks running at once (default: as many as are ready). */
  readonly concurrency?: number;
  /** Attempts per subtask before the plan is updated. */
  readonly maxAttempts?: number;
  /** Whether each output is checked by the verifier (default true). */
  readonly verify?: boolean;
  /**
   * Fault injection (docs/algorithms.md#fault-injection): each subtask's first result is replaced by "none" with this
   * probability.
   */
  readonly injectMask?: { readonly probability: number; readonly seed: number };
}

/** Flow's prompt scope (docs/algorithms.md#prompt-scope); each on unless false. See RunSettings. */
export interface RunPrompts {
  readonly retryFeedback?: boolean;
  readonly plannerScope?: boolean;
  readonly neededBy?: boolean;
  readonly minimalUpdates?: boolean;
}

/** Tools the run's agents may call: a role lists the ones its agent gets, and the planner is told which exist. */
export interface RunToolOptions {
  /** E.g. `loadToolsFile(...).tools`; the caller closes their ToolSet after the run. */
  readonly available: readonly Tool[];
  /** Model calls per tool loop that may ask for tools (default 8). */
  readonly maxSteps?: number;
  /** The tools file `available` came from, recorded so that `weft resume` loads the same one. */
  readonly file?: string;
  /** The plan file whose `tools:` section gave some of `available`, recorded likewise. */
  readonly planFile?: string;
}

/** Roles of kinds besides `llm` (a team), and how models named by spec are made. */
export interface RunRoles {
  /**
   * The engines of role kinds besides `llm` (run/role-kind.ts), e.g. the team engine: the library's
   * defaultRoleKinds(). Without one for a kind, a plan with a role of that kind is refused before the run starts.
   */
  readonly kinds?: readonly RoleKindEngine[];
  /**
   * Makes the model a role names by spec, e.g. a team file's agent or ranker (its calls are metered like the
   * run's own), and the task check's judge. Default: `createModel` of src/llm with no retries or timeouts; the CLI
   * passes its resilient one.
   */
  readonly createModel?: (spec: string) => Promise<ChatModel>;
}

/**
 * Task success judged apart from the verifier once the run is done (docs/algorithms.md#fault-injection): a shell
 * command run in the artifacts folder (exit 0 = success) and/or a judge model; each with a deadline (default 120 s).
 */
export interface TaskCheckOptions {
  readonly command?: string;
  readonly judgeModel?: string;
  readonly timeoutMs?: number;
}

/** What every run takes, new or resumed. */
export interface RunCommonOptions {
  readonly model: ChatModel;
  readonly store: RunStore;
  /**
   * The Weft home; run files go in `<home>/runs/<runId>`. Default: the home the store was opened on
   * (openRunStore); when both are known they must agree.
   */
  readonly home?: string;
  /** USD of one call; defaults to free (the CLI passes the price table). */
  readonly costOf?: (result: ChatResult, modelId?: string) => number;
  readonly signal?: AbortSignal;
  /** Called with each event as it is emitted, like the handle's `events` but unbuffered. */
  readonly onEvent?: (event: WeftEvent) => void;
  /** Monotonic milliseconds; injectable for tests. */
  readonly clock?: () => number;
  /** Runs `llm` subtask attempts somewhere else, e.g. on queue workers (default: in-process). Other kinds stay here. */
  readonly attemptRunner?: AttemptRunnerFactory;
  readonly roles?: RunRoles;
  /**
   * The folder relative file names resolve against: `planFile` when relative, and a plan's files (a team role's
   * `team:`) when there is no `planFile`. The CLI passes its working directory; without it such names are refused.
   */
  readonly base?: string;
  /** Unread events the handle keeps for a slow consumer (default 10,000); see RunHandle.events. */
  readonly eventBuffer?: number;
}

export interface RunTaskOptions extends RunCommonOptions {
  readonly task: string;
  readonly runId?: string;
  /** Run this workflow instead of planning. */
  readonly plan?: Workflow;
  /** The file `plan` was read from: team roles' files (`team:`) resolve against its folder. */
  readonly planFile?: string;
  readonly run?: RunExecution;
  readonly prompts?: RunPrompts;
  /** Calls, tokens, cost (USD), wall time (ms) and tool calls the run may spend; each a deadline, not a hint. */
  readonly budget?: Budget;
  /** Agent teams the planner may give subtasks to (`weft run <task> --team file`); see loadTeamOffers. */
  readonly teams?: readonly TeamOffer[];
  readonly tools?: RunToolOptions;
  readonly taskCheck?: TaskCheckOptions;
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

/** How a run makes the model a role names: the caller's `createModel`, else plain `createModel` of src/llm. */
export function modelMakerOf(roles: RunRoles | undefined): (spec: string) => Promise<ChatModel> {
  return roles?.createModel ?? ((spec) => createModel(spec));
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

/** What driving a run takes from the options every run shares. */
export function driveInputs(options: RunCommonOptions, home: string, tools: readonly Tool[]): DriveInputs {
  return {
    model: options.model,
    store: options.store,
    home,
    ...(options.costOf ? { costOf: options.costOf } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.attemptRunner ? { attemptRunner: options.attemptRunner } : {}),
    roleKinds: options.roles?.kinds ?? [],
    ...(options.base !== undefined ? { base: options.base } : {}),
    createModel: modelMakerOf(options.roles),
    tools,
  };
}

/**
 * Starts a run and returns its handle at once: `runId`, `events` (an async iterable of the events as they are
 * emitted) and `result`; awaiting the handle gives the result. Invalid options reject `result` before any run
 * exists.
 */
export function runTask(options: RunTaskOptions): RunHandle {
  const runId = options.runId ?? newRunId();
  return runHandle(
    runId,
    options.onEvent,
    (listener) => startRun(runId, { ...options, onEvent: listener }),
    options.eventBuffer,
  );
}

async function startRun(runId: string, options: RunTaskOptions): Promise<RunTaskResult> {
  const home = runHome(options.store, options.home);
  const roleKinds = options.roles?.kinds ?? [];
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
  const tools = options.tools?.available ?? [];
  if (options.plan) checkPlanKinds(options.plan, roleKinds, options.planFile);
  checkToolOptions(options);
  if (options.plan) checkRoleTools(options.plan, tools, options.planFile);
  checkOfferKinds(options.teams, roleKinds);
  // Saved plan versions name their files absolutely, so a version runs again (or resumes) from any folder.
  const plan = options.plan ? preparePlan(options.plan, roleKinds, base) : undefined;
  // A role file that is missing or invalid, or names a model that cannot be made, is the user's input error:
  // report it before any run exists.
  if (plan)
    await checkPlanRoles(plan, roleKinds, {
      base,
      models: { createModel: modelMakerOf(options.roles), runModel: options.model.id },
    });
  const run = options.run ?? {};
  const prompts = options.prompts ?? {};
  const toolOptions = options.tools;
  const settings = resolveRunSettings({
    ...(run.strategy !== undefined ? { strategy: run.strategy } : {}),
    ...(run.candidates !== undefined ? { candidates: run.candidates } : {}),
    ...(run.updateCandidates !== undefined ? { updateCandidates: run.updateCandidates } : {}),
    ...(run.concurrency !== undefined ? { concurrency: run.concurrency } : {}),
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
    plan: options.plan ? 'given' : 'generated',
    ...(run.maxAttempts !== undefined ? { maxAttempts: run.maxAttempts } : {}),
    ...(run.verify !== undefined ? { verify: run.verify } : {}),
    ...(prompts.retryFeedback !== undefined ? { retryFeedback: prompts.retryFeedback } : {}),
    ...(prompts.plannerScope !== undefined ? { plannerScope: prompts.plannerScope } : {}),
    ...(prompts.neededBy !== undefined ? { neededBy: prompts.neededBy } : {}),
    ...(prompts.minimalUpdates !== undefined ? { minimalUpdates: prompts.minimalUpdates } : {}),
    ...(run.injectMask ? { injectMask: run.injectMask } : {}),
    ...(teamBase !== undefined ? { teamBase } : {}),
    ...(options.teams && options.teams.length > 0 ? { teams: options.teams } : {}),
    ...(toolOptions?.maxSteps !== undefined ? { maxToolSteps: toolOptions.maxSteps } : {}),
    ...(toolOptions?.file !== undefined ? { toolsFile: toolOptions.file } : {}),
    ...(toolOptions?.planFile !== undefined ? { planToolsFile: toolOptions.planFile } : {}),
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
  const judgeModel = options.taskCheck?.judgeModel;
  return driveRun({
    runId,
    task: options.task,
    settings,
    inputs: {
      ...driveInputs(options, home, tools),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(judgeModel !== undefined ? { judgeModel } : {}),
    },
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

/** The tool options' ranges, before any run exists. */
function checkToolOptions(options: Pick<RunTaskOptions, 'tools' | 'budget'>): void {
  if (options.tools?.maxSteps !== undefined) integerOption(options.tools.maxSteps, 'tools.maxSteps', { min: 1 });
  const calls = options.budget?.maxToolCalls;
  if (calls !== undefined) integerOption(calls, 'maxToolCalls', { min: 0 });
  const seen = new Set<string>();
  for (const tool of options.tools?.available ?? []) {
    if (seen.has(tool.name))
      throw new WeftError('BAD_INPUT', `Two tools are named "${tool.name}"`, {
        location: { field: 'tools.available' },
      });
    seen.add(tool.name);
  }
}
