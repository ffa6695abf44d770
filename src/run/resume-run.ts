/**
 * `weft resume`: continues an interrupted or cancelled run from its event log, in the same run directory, with
 * the same settings and what is left of its budgets. Completed subtasks are not run again and recorded calls are
 * replayed, not repeated.
 */
import { WeftError } from '../errors.js';
import { workflowFromJson } from '../graph/index.js';
import { currentOwner, ownerState } from '../store/run-owner.js';
import { recordPlanVersion } from './record-plan-version.js';
import { foldForResume, type ResumeState } from './resume-state.js';
import { checkOfferKinds, checkPlanKinds, checkPlanRoles, checkRoleKinds, type RoleKindSetup } from './role-kind.js';
import { checkRoleTools } from './run-tools.js';
import { resolveRunSettings, type ResolvedRunSettings, type RunSettings } from './run-settings.js';
import { driveInputs, modelMakerOf, type RunCommonOptions } from './run-task.js';
import { driveRun, type DriveInputs, type RunTaskResult } from './drive-run.js';
import { runHandle, type RunHandle } from './run-handle.js';
import { runHome } from './run-home.js';
import { redactModelSpec } from '../llm/model-spec.js';
import type { Tool } from '../tools/tool.js';
import { runEvents } from './run-events.js';

/**
 * A resume takes what every run takes; the rest (task, plan, settings, budgets, teams) comes from the run's log.
 */
export interface ResumeRunOptions extends RunCommonOptions {
  readonly runId: string;
  /** The tools the run was started with, loaded again (its settings name the files). */
  readonly tools?: { readonly available: readonly Tool[] };
}

/** Statuses a run can be resumed from: it did not finish. */
const RESUMABLE = new Set(['running', 'interrupted', 'cancelled']);

/** Resumes a run; returns the same handle as runTask (awaiting it gives the result). */
export function resumeRun(options: ResumeRunOptions): RunHandle {
  return runHandle(
    options.runId,
    options.onEvent,
    (listener) => resume({ ...options, onEvent: listener }),
    options.eventBuffer,
  );
}

async function resume(options: ResumeRunOptions): Promise<RunTaskResult> {
  const home = runHome(options.store, options.home);
  const tools = options.tools?.available ?? [];
  const run = await options.store.getRun(options.runId);
  if (!run)
    throw new WeftError('NOT_FOUND', `No run "${options.runId}" (see \`weft runs\`)`, {
      location: { field: '<runId>' },
    });
  // Two processes driving one run would both record results: a run whose owner is still alive is not ours.
  if (run.status === 'running' && ownerState(run.owner) === 'alive' && run.owner?.pid !== process.pid) {
    throw new WeftError(
      'BAD_INPUT',
      `Run "${options.runId}" is still running or already being resumed by pid ${run.owner?.pid}; stop that process before resuming`,
      { location: { field: '<runId>' } },
    );
  }
  if (!RESUMABLE.has(run.status)) {
    throw new WeftError(
      'BAD_INPUT',
      `Run "${options.runId}" already finished (${run.status}); there is nothing to resume`,
      { location: { field: '<runId>' } },
    );
  }
  // Several resumes may have read the same dead owner: the store's compare-and-set lets exactly one take the run
  // over, before anything is written (a plan version backfilled twice, events from two processes).
  if (!(await options.store.takeOverRun(options.runId, currentOwner(), run.owner))) {
    const taker = (await options.store.getRun(options.runId))?.owner;
    throw new WeftError('BAD_INPUT', `Run "${options.runId}" is already being resumed by pid ${taker?.pid ?? '?'}`, {
      location: { field: '<runId>' },
    });
  }
  let state: ResumeState;
  let settings: ResolvedRunSettings;
  let workflow: ReturnType<typeof workflowFromJson> | undefined;
  try {
    state = foldForResume(await runEvents(options.store, options.runId));
    settings = resolveRunSettings((state.runId === options.runId ? state.settings : run.options) as RunSettings);
    if (settings.plan === 'given' && !state.workflow) {
      // Written before any work, so only a process killed at its very start gets here.
      throw new WeftError(
        'BAD_INPUT',
        `Run "${options.runId}" was interrupted before its given plan was recorded; start it again with \`weft run --plan\``,
        { location: { field: '<runId>' } },
      );
    }
    workflow = state.workflow ? workflowFromJson(state.workflow) : undefined;
    // Role files (a team's) may have moved or broken since the run began, or this process may lack the engine of
    // a kind: refuse now, leaving the run resumable, rather than fail its subtasks one attempt after another.
    const roleKinds = options.roles?.kinds ?? [];
    checkRoleKinds(roleKinds);
    const setup: RoleKindSetup = {
      base: settings.teamBase ?? options.base,
      models: { createModel: modelMakerOf(options.roles), runModel: options.model.id },
    };
    if (workflow) {
      checkPlanKinds(workflow, roleKinds);
      checkRoleTools(workflow, tools);
      await checkPlanRoles(workflow, roleKinds, setup);
    } else if (settings.teams) {
      checkOfferKinds(settings.teams, roleKinds);
      for (const engine of roleKinds) await engine.checkOffers?.(settings.teams, setup);
    }
  } catch (error) {
    // Refused before any work: the run goes back to its owner and status, as resumable as it was.
    if (run.owner) await options.store.setOwner(options.runId, run.owner).catch(() => {});
    await options.store.setStatus(options.runId, run.status).catch(() => {});
    throw error;
  }
  await backfillPlanVersions(options, home, state.versions);
  const inputs: DriveInputs = {
    ...driveInputs(options, home, tools),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  };
  if (state.runId !== options.runId) {
    // Killed before its first event was written: nothing happened yet, so the run starts from its record.
    return driveRun({
      runId: options.runId,
      task: run.task,
      settings,
      inputs,
      start: (emit) =>
        emit({
          type: 'run-start',
          runId: options.runId,
          task: run.task,
          model: redactModelSpec(options.model.id),
          strategy: settings.strategy,
          options: { ...settings },
        }),
      initial: { kind: 'plan' },
    });
  }
  return driveRun({
    runId: options.runId,
    task: state.task,
    settings: state.settings,
    inputs,
    start: (emit) =>
      emit({
        type: 'run-resume',
        previousStatus: run.status,
        replayable: state.replay.size,
        completed: state.completed,
      }),
    initial: { kind: 'resume', state, workflow },
  });
}

/**
 * A version is announced by its event first and saved second; a process killed in between leaves the event
 * without the saved version. The log is the truth, so the missing versions (and their plan files) are restored.
 */
async function backfillPlanVersions(
  options: ResumeRunOptions,
  home: string,
  versions: ResumeState['versions'],
): Promise<void> {
  const saved = new Set((await options.store.planVersions(options.runId)).map((version) => version.version));
  for (const version of versions) {
    if (saved.has(version.version)) continue;
    await recordPlanVersion(options.store, home, {
      runId: options.runId,
      version: version.version,
      workflow: version.workflow,
      cause: version.cause,
      ...(version.diff ? { diff: version.diff } : {}),
    });
  }
}
