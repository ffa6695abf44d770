/**
 * The executor's reducer (ready-set scheduling, verdicts, plan updates; docs/design.md "Flow: execution"): what
 * happens next in a run, as `step(state, input) → commands`. Deterministic, synchronous and free of I/O: no promises, timers,
 * model or store. execution.ts is the interpreter that feeds it inputs and carries out its commands.
 *
 * "Pure" here means that, not immutable: `step` mutates the state it owns in place and returns the commands. A run
 * of 10,000 subtasks must cost O(children) per completion, which copying the subtasks per input would not.
 *
 * Inputs are what the log records (a settled attempt becomes task-end/task-verify, an update plan-candidates/
 * plan-update, cancel and deadline run-end) plus the interpreter's own: `schedule` (one scheduling pass),
 * `synced` (the log became durable), `update-ended` and `bookkeeping-failed`. The update strategy is an
 * `UpdatePolicy` object; this module never looks at its name except to word a review's cause.
 *
 * The log's folds (resume and the run summary) share subtask-fate.ts instead of this reducer: the live run holds
 * what the log does not (running attempts, clones, the durability gate, requested but unstarted updates), and the
 * folds must also read logs written by older versions. The property test of resume (test/run/run-state.property
 * .test.ts) ties the two: a log cut anywhere, folded and continued here, ends as the uninterrupted run.
 */
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { diffWorkflows, toWorkflowJson } from '../graph/index.js';
import { completeNode, linkNodes, type ReadyNode } from '../graph/ready-queue.js';
import type { Role, SubtaskStatus, Workflow } from '../graph/workflow.js';
import { mergeUpdate } from '../plan/merge-update.js';
import type { ExecuteContext, FailureReport } from '../plan/prompts.js';
import type { UpdateResult } from '../plan/update-plan.js';
import { candidateSummary } from './candidate-summary.js';
import { ClonePool } from './clone-pool.js';
import {
  blockedReason,
  feedbackOf,
  NO_EARLIER_ATTEMPTS,
  withEarlierAttempt,
  type EarlierAttempts,
} from './earlier-attempts.js';
import type { WeftEvent, WorkflowDiffSummary } from './events.js';
import type { AttemptOutcome } from './run-subtask.js';
import type { UpdatePolicy } from './update-policy.js';

export type EventWithoutTime = WeftEvent extends infer E ? (E extends WeftEvent ? Omit<E, 'at'> : never) : never;

/** A failure waiting for the inspector, with the failed attempt's whole output when it produced one. */
type Failure = FailureReport;

interface TaskState extends ReadyNode {
  objective: string;
  agent: string;
  output: string | undefined;
  outputFormat: string | undefined;
  attempts: number;
  /** The attempts under this objective that were not accepted: what the next attempt is told. */
  earlier: EarlierAttempts;
  /** Bumped when the subtask is discarded or replaced, so a late result of the old run is ignored. */
  generation: number;
  /** The running attempt's handle (the interpreter's abort controller), if one runs. */
  handle: number | undefined;
  clone: number;
  /** The role whose clone runs the subtask now (the agent may be reassigned while it runs). */
  cloneAgent: string;
}

export interface RunConfig {
  readonly policy: UpdatePolicy;
  readonly concurrency: number;
  readonly maxAttempts: number;
  readonly maxUpdates: number;
  /** Whether the interpreter must make the log durable before a start (write-ahead). */
  readonly durable: boolean;
  /** Tell a retry its earlier attempts and the verifier's reasons (default true; docs/algorithms.md). */
  readonly retryFeedback?: boolean;
  /** Show an agent the objectives of the subtasks that need its result (default true). */
  readonly neededBy?: boolean;
}

export interface RunState {
  readonly config: RunConfig;
  readonly task: string;
  tasks: Map<string, TaskState>;
  order: string[];
  readonly roles: Map<string, Role>;
  ready: string[];
  readyHead: number;
  /** Attempts by handle (handles count from 1, so an array); an entry is cleared when its attempt settles. */
  readonly attempts: (TaskState | undefined)[];
  /** The task's generation and attempt number when each attempt started (plain numbers: no object per attempt). */
  readonly attemptGenerations: number[];
  readonly attemptNumbers: number[];
  /** Attempts running now, a discarded one included until it settles. */
  running: number;
  readonly clones: Map<string, ClonePool>;
  pendingFailures: Failure[];
  /** A routine review asked for by the policy, and a repair asked for by failures. */
  reviewRequested: boolean;
  repairRequested: boolean;
  /** The failures the running update was asked about, while one runs. */
  updating: { readonly failures: readonly Failure[] } | undefined;
  /** Inspector rounds so far (each gets its own seed key). */
  updates: number;
  /** Rounds that count against `maxUpdates` (repairs, for the built-in policies). */
  repairs: number;
  /** Attempts settled so far (not discarded ones), for the policy. */
  settled: number;
  readonly unrepaired: string[];
  version: number;
  stopping: { status: 'failed' | 'cancelled'; reason: string } | undefined;
  syncing: boolean;
  finished: boolean;
  bookkeepingError: string | undefined;
}

export type AttemptError = { readonly message: string; readonly kind: 'budget' | 'abort' | 'other' };

export type RunInput =
  /** One scheduling pass; `logPending` says whether the log has events not yet durable. */
  | { readonly type: 'schedule'; readonly logPending: boolean }
  | { readonly type: 'attempt-settled'; readonly handle: number; readonly outcome: AttemptOutcome }
  | { readonly type: 'attempt-failed'; readonly handle: number; readonly error: AttemptError }
  | { readonly type: 'update-proposed'; readonly result: UpdateResult }
  /** The inspector failed; `budget` stops the run, an abort is ignored, anything else keeps the plan. */
  | { readonly type: 'update-failed'; readonly error: AttemptError }
  | { readonly type: 'update-ended' }
  | { readonly type: 'synced' }
  | {
      readonly type: 'stop';
      readonly status: 'failed' | 'cancelled';
      readonly reason: string;
      readonly abortRunning?: boolean;
    }
  | { readonly type: 'bookkeeping-failed'; readonly message: string };

export interface AttemptRequest {
  readonly handle: number;
  readonly id: string;
  readonly objective: string;
  readonly role: Role;
  readonly parents: readonly { id: string; objective: string; output: string }[];
  readonly attempt: number;
  /** Earlier attempts, the children's objectives and the output format, as the config allows. */
  readonly context: ExecuteContext;
}

export type RunCommand =
  | { readonly type: 'emit'; readonly event: EventWithoutTime }
  /** Start an attempt; its `task-start` is emitted by the interpreter once the attempt's abort handle exists. */
  | { readonly type: 'start-attempt'; readonly request: AttemptRequest; readonly event: EventWithoutTime }
  | { readonly type: 'abort'; readonly handles: readonly number[]; readonly reason: string }
  | {
      readonly type: 'propose-update';
      readonly workflow: Workflow;
      readonly failures: readonly Failure[];
      readonly sequence: number;
    }
  | { readonly type: 'sync' }
  | { readonly type: 'accepted'; readonly taskId: string; readonly output: string }
  | {
      readonly type: 'save-plan-version';
      readonly version: number;
      readonly workflow: Workflow;
      readonly cause: string;
      readonly diff: WorkflowDiffSummary;
    }
  /** The run is over once tracked bookkeeping lands; `runOutcome` then tells its status. */
  | { readonly type: 'finish' };

export interface InitialRun {
  readonly workflow: Workflow;
  readonly version?: number;
  /** Failures recorded before a resume whose repair had not been applied yet. */
  readonly failures?: readonly Failure[];
  readonly rounds?: { readonly updates: number; readonly repairs: number };
  /** Each subtask's earlier attempts as the log tells them (resume-state.ts), so a resumed retry is told the same. */
  readonly earlier?: ReadonlyMap<string, EarlierAttempts>;
}

/** Throws BAD_INPUT for limits no run can have; returns `config`. */
export function checkRunConfig(config: RunConfig): RunConfig {
  if (!(config.concurrency >= 1))
    throw new WeftError('BAD_INPUT', `Expected concurrency >= 1, got ${config.concurrency}`, {
      location: { field: 'concurrency' },
    });
  integerOption(config.maxAttempts, 'maxAttempts', { min: 1 });
  return config;
}

export function createRunState(config: RunConfig, initial: InitialRun): { state: RunState; commands: RunCommand[] } {
  checkRunConfig(config);
  const state: RunState = {
    config,
    task: initial.workflow.task,
    tasks: new Map(),
    order: [],
    roles: new Map(),
    ready: [],
    readyHead: 0,
    attempts: [undefined],
    attemptGenerations: [0],
    attemptNumbers: [0],
    running: 0,
    clones: new Map(),
    pendingFailures: [],
    reviewRequested: false,
    repairRequested: false,
    updating: undefined,
    updates: initial.rounds?.updates ?? 0,
    repairs: initial.rounds?.repairs ?? 0,
    settled: 0,
    unrepaired: [],
    version: initial.version ?? 1,
    stopping: undefined,
    syncing: false,
    finished: false,
    bookkeepingError: undefined,
  };
  const commands: RunCommand[] = [];
  // A given plan may mark subtasks failed (e.g. an earlier run's); a fresh run gives them their turn again.
  const repairing = new Set((initial.failures ?? []).map((failure) => failure.id));
  const workflow = initial.workflow;
  load(
    state,
    {
      ...workflow,
      subtasks: workflow.subtasks.map((s) =>
        s.status === 'failed' && !repairing.has(s.id) ? { ...s, status: 'not started' as const } : s,
      ),
    },
    commands,
    initial.earlier,
  );
  for (const failure of initial.failures ?? []) {
    const task = state.tasks.get(failure.id);
    if (task?.status === 'failed') fail(state, task, failure.reason, failure.output);
  }
  return { state, commands };
}

export function step(state: RunState, input: RunInput): RunCommand[] {
  const commands: RunCommand[] = [];
  switch (input.type) {
    case 'schedule':
      schedule(state, input.logPending, commands);
      break;
    case 'attempt-settled':
    case 'attempt-failed':
      settle(state, input, commands);
      break;
    case 'update-proposed':
      applyUpdate(state, input.result.proposal, commands, (rerun) => {
        const result = input.result;
        commands.push({
          type: 'emit',
          event: {
            type: 'plan-candidates',
            purpose: 'update',
            candidates: result.candidates.map(candidateSummary),
            round: state.updates,
            repair: (state.updating?.failures.length ?? 0) > 0,
            ...(rerun.length > 0 ? { rerun } : {}),
            ...(result.chosenIndex >= 0 ? { chosen: result.chosenIndex } : {}),
          },
        });
      });
      break;
    case 'update-failed':
      if (input.error.kind === 'budget') stop(state, 'failed', input.error.message, false, commands);
      else if (input.error.kind !== 'abort') applyUpdate(state, undefined, commands, () => {});
      break;
    case 'update-ended':
      state.updating = undefined;
      break;
    case 'synced':
      state.syncing = false;
      break;
    case 'stop':
      stop(state, input.status, input.reason, input.abortRunning ?? input.status === 'cancelled', commands);
      break;
    case 'bookkeeping-failed':
      // A failure in bookkeeping (artifacts, plan versions) must not be swallowed, even one that lands after the
      // last subtask: it stops the run now and decides its status at the end.
      state.bookkeepingError ??= input.message;
      stop(state, 'failed', input.message, false, commands);
      break;
  }
  return commands;
}

/**
 * Ends the run once the running subtasks settle. Cancelling and the deadline abort their calls; any other stop
 * (a spent call budget, a failed write) lets them finish, because those calls are paid for and their results kept.
 */
function stop(
  state: RunState,
  status: 'failed' | 'cancelled',
  reason: string,
  abortRunning: boolean,
  commands: RunCommand[],
): void {
  if (state.stopping || state.finished) return;
  state.stopping = { status, reason };
  if (abortRunning) {
    const handles: number[] = [];
    for (const task of state.tasks.values()) if (task.handle !== undefined) handles.push(task.handle);
    if (handles.length > 0) commands.push({ type: 'abort', handles, reason });
  }
}

function updateRequested(state: RunState): boolean {
  return state.reviewRequested || state.repairRequested;
}

/** One pass of deciding what happens next: start an update, start ready subtasks, or end the run. */
function schedule(state: RunState, logPending: boolean, commands: RunCommand[]): void {
  if (state.finished) return;
  const { policy, concurrency, maxAttempts } = state.config;
  if (state.stopping) {
    if (state.running === 0 && !state.updating) finish(state, commands);
    return;
  }
  const barrier = policy.barrier && (updateRequested(state) || state.updating !== undefined);
  if (updateRequested(state) && !state.updating && (!policy.barrier || state.running === 0))
    startUpdate(state, commands);
  const startable = !barrier && state.running < concurrency && state.readyHead < state.ready.length;
  if (startable && state.config.durable && logPending) {
    // Starting work is the effect of what was recorded: wait until the record is on disk.
    if (!state.syncing) {
      state.syncing = true;
      commands.push({ type: 'sync' });
    }
  } else if (startable) {
    while (state.running < concurrency && state.readyHead < state.ready.length) {
      const task = state.tasks.get(state.ready[state.readyHead++]!);
      if (task?.status !== 'not started' || task.pendingParents !== 0) continue;
      if (task.attempts >= maxAttempts) {
        // A revision can ask to rerun a subtask that has no attempts left: say so instead of failing silently.
        task.status = 'failed';
        commands.push({
          type: 'emit',
          event: {
            type: 'task-end',
            taskId: task.id,
            attempt: task.attempts,
            status: 'failed',
            error: `attempt limit of ${maxAttempts} reached`,
          },
        });
        continue;
      }
      startTask(state, task, commands);
    }
  }
  if (
    state.running === 0 &&
    !state.updating &&
    !updateRequested(state) &&
    !state.syncing &&
    state.readyHead >= state.ready.length
  )
    finish(state, commands);
}

function finish(state: RunState, commands: RunCommand[]): void {
  if (state.finished) return;
  state.finished = true;
  commands.push({ type: 'finish' });
}

function startTask(state: RunState, task: TaskState, commands: RunCommand[]): void {
  task.status = 'in progress';
  task.attempts += 1;
  task.generation += 1;
  task.handle = state.attempts.length;
  task.cloneAgent = task.agent;
  let pool = state.clones.get(task.agent);
  if (!pool) state.clones.set(task.agent, (pool = new ClonePool()));
  task.clone = pool.acquire();
  state.attempts.push(task);
  state.attemptGenerations.push(task.generation);
  state.attemptNumbers.push(task.attempts);
  state.running += 1;
  const role = state.roles.get(task.agent) ?? {
    name: task.agent,
    prompt: `You are the ${task.agent}.`,
    kind: 'llm' as const,
  };
  const parents = task.parents.map((parent) => ({
    id: parent.id,
    objective: parent.objective,
    output: parent.output ?? '',
  }));
  const earlier = state.config.retryFeedback === false ? NO_EARLIER_ATTEMPTS : task.earlier;
  const neededBy =
    state.config.neededBy === false ? [] : task.children.map((child) => ({ id: child.id, objective: child.objective }));
  // Filled field by field rather than from spreads of small objects: one object per attempt, not four.
  const context: { -readonly [K in keyof ExecuteContext]: ExecuteContext[K] } = {};
  if (earlier.shown.length > 0) {
    context.earlier = earlier.shown;
    context.earlierLeftOut = earlier.leftOut;
  }
  if (neededBy.length > 0) context.neededBy = neededBy;
  if (task.outputFormat !== undefined) context.outputFormat = task.outputFormat;
  const event: Extract<EventWithoutTime, { type: 'task-start' }> = {
    type: 'task-start',
    taskId: task.id,
    attempt: task.attempts,
    agent: task.agent,
    clone: task.clone,
  };
  // What this attempt is told of the earlier ones: in the log, so `weft show` and a resume know it.
  if (earlier.shown.length > 0) event.feedback = feedbackOf(earlier);
  commands.push({
    type: 'start-attempt',
    request: {
      handle: task.handle,
      id: task.id,
      objective: task.objective,
      role,
      parents,
      attempt: task.attempts,
      context,
    },
    event,
  });
}

function settle(
  state: RunState,
  input: Extract<RunInput, { type: 'attempt-settled' | 'attempt-failed' }>,
  commands: RunCommand[],
): void {
  const task = state.attempts[input.handle];
  if (!task) throw new WeftError('INTERNAL', `no running attempt ${input.handle}`);
  state.attempts[input.handle] = undefined;
  state.running -= 1;
  const generation = state.attemptGenerations[input.handle]!;
  const attempt = state.attemptNumbers[input.handle]!;
  state.clones.get(task.cloneAgent)?.release(task.clone);
  if (task.handle === input.handle) task.handle = undefined;
  if (task.generation !== generation || state.tasks.get(task.id) !== task) {
    commands.push({
      type: 'emit',
      event: {
        type: 'task-end',
        taskId: task.id,
        attempt,
        status: 'failed',
        error: 'discarded by a plan update',
        outcome: 'discarded',
      },
    });
    return;
  }
  if (input.type === 'attempt-failed') settleError(state, task, attempt, input.error, commands);
  else settleOutcome(state, task, attempt, input.outcome, commands);
  state.settled += 1;
  if (state.config.policy.reviewAfterAttempt(state.settled)) requestUpdate(state, 'review');
}

function settleOutcome(
  state: RunState,
  task: TaskState,
  attempt: number,
  outcome: AttemptOutcome,
  commands: RunCommand[],
): void {
  if (outcome.kind === 'blocked') {
    const error = blockedReason(outcome.reason);
    commands.push({
      type: 'emit',
      event: { type: 'task-end', taskId: task.id, attempt, status: 'failed', output: outcome.output, error },
    });
    remember(task, { attempt, verdict: 'blocked', output: outcome.output, reason: error });
    fail(state, task, `the agent cannot proceed: ${outcome.reason}`, outcome.output);
    return;
  }
  commands.push({
    type: 'emit',
    event: {
      type: 'task-end',
      taskId: task.id,
      attempt,
      status: 'completed',
      output: outcome.output,
      ...(outcome.masked
        ? { masked: true, ...(outcome.produced !== undefined ? { produced: outcome.produced } : {}) }
        : {}),
    },
  });
  commands.push({
    type: 'emit',
    event: { type: 'task-verify', taskId: task.id, attempt, verdict: outcome.verdict, reason: outcome.reason },
  });
  if (outcome.verdict === 'accept') {
    task.output = outcome.output;
    completeNode(task, state.ready);
    commands.push({ type: 'accepted', taskId: task.id, output: outcome.output });
    return;
  }
  remember(task, { attempt, verdict: outcome.verdict, output: outcome.output, reason: outcome.reason });
  if (outcome.verdict === 'retry' && task.attempts < state.config.maxAttempts) {
    task.status = 'not started';
    state.ready.push(task.id);
  } else {
    fail(state, task, outcome.reason || `verification answered ${outcome.verdict}`, outcome.output);
  }
}

function remember(task: TaskState, entry: Parameters<typeof withEarlierAttempt>[1]): void {
  task.earlier = withEarlierAttempt(task.earlier, entry);
}

function settleError(
  state: RunState,
  task: TaskState,
  attempt: number,
  error: AttemptError,
  commands: RunCommand[],
): void {
  if (error.kind === 'budget') {
    // The refused call never ran: the subtask is unfinished, not failed.
    commands.push({
      type: 'emit',
      event: { type: 'task-end', taskId: task.id, attempt, status: 'failed', error: error.message, outcome: 'refused' },
    });
    task.status = 'not started';
    stop(state, 'failed', error.message, false, commands);
    return;
  }
  if (state.stopping && error.kind === 'abort') {
    commands.push({
      type: 'emit',
      event: { type: 'task-end', taskId: task.id, attempt, status: 'failed', error: error.message, outcome: 'aborted' },
    });
    task.status = 'not started';
    return;
  }
  commands.push({
    type: 'emit',
    event: { type: 'task-end', taskId: task.id, attempt, status: 'failed', error: error.message },
  });
  fail(state, task, error.message);
}

function fail(state: RunState, task: TaskState, reason: string, output?: string): void {
  task.status = 'failed';
  if (!state.config.policy.updates) return;
  if (state.repairs >= state.config.maxUpdates) {
    state.unrepaired.push(task.id);
    return;
  }
  state.pendingFailures.push({ id: task.id, reason, ...(output !== undefined ? { output } : {}) });
  requestUpdate(state, 'repair');
}

function requestUpdate(state: RunState, kind: 'review' | 'repair'): void {
  if (!state.config.policy.updates) return;
  // Routine reviews are bounded by the completions that trigger them; repairs by the limit.
  if (state.pendingFailures.length > 0 && state.repairs >= state.config.maxUpdates) return;
  if (kind === 'review') state.reviewRequested = true;
  else state.repairRequested = true;
}

function startUpdate(state: RunState, commands: RunCommand[]): void {
  state.reviewRequested = false;
  state.repairRequested = false;
  state.updates += 1;
  const failures = state.pendingFailures.splice(0);
  state.updating = { failures };
  if (state.config.policy.countsAgainstLimit({ repair: failures.length > 0 })) state.repairs += 1;
  commands.push({ type: 'propose-update', workflow: snapshot(state), failures, sequence: state.updates });
}

/** Merges the inspector's proposal (or none, when it failed) into the live plan. `logRound` logs the round. */
function applyUpdate(
  state: RunState,
  proposal: UpdateResult['proposal'],
  commands: RunCommand[],
  logRound: (rerun: string[]) => void,
): void {
  const failures = state.updating?.failures ?? [];
  if (state.stopping) {
    logRound([]);
    return;
  }
  const live = snapshot(state);
  let merged = mergeUpdate(live, proposal);
  let note = '';
  if (!merged.ok) {
    note = ` (revision ignored: ${merged.issues.map((i) => i.message).join('; ')})`;
    merged = mergeUpdate(live, undefined);
    if (!merged.ok) throw new WeftError('INTERNAL', 'merging a valid workflow with itself failed');
  }
  // Only the failures this update was asked about run again now; later ones wait for their own update.
  const rerun = new Set(
    failures.filter((f) => (state.tasks.get(f.id)?.attempts ?? 0) < state.config.maxAttempts).map((f) => f.id),
  );
  const mergedWorkflow = merged.workflow;
  logRound([...rerun].filter((id) => mergedWorkflow.subtasks.some((s) => s.id === id)));
  const next: Workflow = {
    ...mergedWorkflow,
    subtasks: mergedWorkflow.subtasks.map((s) => {
      const wasFailed = state.tasks.get(s.id)?.status === 'failed';
      const unchanged = state.tasks.get(s.id)?.objective === s.objective;
      return wasFailed && unchanged && !rerun.has(s.id) ? { ...s, status: 'failed' as const } : s;
    }),
  };
  load(state, next, commands);
  // Failures queued while this update ran are moot when it already replaced or restarted their subtask.
  state.pendingFailures = state.pendingFailures.filter((failure) => state.tasks.get(failure.id)?.status === 'failed');
  if (state.pendingFailures.length === 0) state.repairRequested = false;
  const diff = diffWorkflows(live, next);
  const discarded = merged.discarded;
  const changed =
    diff.added.length + diff.removed.length + diff.changed.length + diff.rewired.length + discarded.length > 0;
  if (!changed) return;
  state.version += 1;
  const cause =
    failures.length > 0
      ? `${failures.map((f) => `${f.id}: ${f.reason}`).join('; ')}${note}`
      : `${state.config.policy.name} review${note}`;
  const summary: WorkflowDiffSummary = {
    added: diff.added,
    removed: diff.removed,
    changed: diff.changed,
    rewired: diff.rewired,
  };
  commands.push({
    type: 'emit',
    event: {
      type: 'plan-update',
      version: state.version,
      cause,
      diff: summary,
      workflow: toWorkflowJson(next),
      // The statuses in `workflow` already say what runs again (resume folds them); this says why.
      ...(discarded.length > 0 ? { discarded: discarded.map((work) => ({ id: work.id, reason: work.reason })) } : {}),
    },
  });
  // The round ends here, with its revision merged and logged. Saving the version is bookkeeping that must not
  // hold the round open: failures arriving during the save would wait for a later round, so how many failures a
  // round batches (and so the plans) depended on disk speed, and a resumed run could end differently.
  commands.push({ type: 'save-plan-version', version: state.version, workflow: next, cause, diff: summary });
}

/** `earlier`: each subtask's earlier attempts when the run starts (a resume's); later loads keep the live ones. */
function load(
  state: RunState,
  workflow: Workflow,
  commands: RunCommand[],
  earlier?: ReadonlyMap<string, EarlierAttempts>,
): void {
  const previous = state.tasks;
  state.tasks = new Map();
  state.order = workflow.subtasks.map((s) => s.id);
  for (const role of workflow.roles) state.roles.set(role.name, role);
  for (const subtask of workflow.subtasks) {
    const old = previous.get(subtask.id);
    const keepRunning = old?.status === 'in progress' && subtask.status === 'in progress';
    if (keepRunning && old) {
      old.dependsOn = [...subtask.dependsOn];
      old.agent = subtask.agent;
      old.outputFormat = subtask.outputFormat;
      old.parents = [];
      old.children = [];
      state.tasks.set(subtask.id, old);
      continue;
    }
    // A plan file may carry 'in progress' from an earlier run; nothing runs it here, so it starts afresh.
    const status: SubtaskStatus = subtask.status === 'in progress' ? 'not started' : subtask.status;
    state.tasks.set(subtask.id, {
      id: subtask.id,
      objective: subtask.objective,
      agent: subtask.agent,
      dependsOn: [...subtask.dependsOn],
      parents: [],
      children: [],
      status,
      output: status === 'completed' ? subtask.output : undefined,
      outputFormat: subtask.outputFormat,
      attempts: subtask.attempts,
      // A changed objective is a new subtask: what went wrong under the old one does not apply.
      earlier:
        old && old.objective === subtask.objective ? old.earlier : (earlier?.get(subtask.id) ?? NO_EARLIER_ATTEMPTS),
      pendingParents: 0,
      generation: (old?.generation ?? 0) + 1,
      handle: undefined,
      clone: -1,
      cloneAgent: subtask.agent,
    });
  }
  // Whatever ran under the old plan and is not kept is discarded: abort it and ignore its late result.
  const discarded: number[] = [];
  for (const old of previous.values()) {
    if (old.status === 'in progress' && state.tasks.get(old.id) !== old) {
      old.generation += 1;
      if (old.handle !== undefined) discarded.push(old.handle);
      old.handle = undefined;
    }
  }
  if (discarded.length > 0) commands.push({ type: 'abort', handles: discarded, reason: 'discarded by a plan update' });
  state.ready = linkNodes(state.order, state.tasks);
  state.readyHead = 0;
}

/** The live plan as an immutable workflow (for an update or the caller). */
export function snapshot(state: RunState): Workflow {
  return {
    task: state.task,
    roles: [...state.roles.values()],
    subtasks: state.order.map((id) => {
      const s = state.tasks.get(id)!;
      return {
        id: s.id,
        objective: s.objective,
        agent: s.agent,
        dependsOn: s.dependsOn,
        status: s.status,
        attempts: s.attempts,
        ...(s.output !== undefined ? { output: s.output } : {}),
        ...(s.outputFormat !== undefined ? { outputFormat: s.outputFormat } : {}),
      };
    }),
  };
}

/** How a finished run ended: read once its tracked bookkeeping has landed. */
export function runOutcome(state: RunState): {
  status: 'completed' | 'failed' | 'cancelled';
  reason?: string;
  workflow: Workflow;
  version: number;
} {
  const workflow = snapshot(state);
  const version = state.version;
  const incomplete = workflow.subtasks.filter((s) => s.status !== 'completed');
  if (state.bookkeepingError !== undefined && state.stopping?.status !== 'cancelled') {
    return { status: 'failed', reason: state.stopping?.reason ?? state.bookkeepingError, workflow, version };
  }
  if (state.stopping) return { status: state.stopping.status, reason: state.stopping.reason, workflow, version };
  if (incomplete.length === 0) return { status: 'completed', workflow, version };
  const failed = incomplete.filter((s) => s.status === 'failed').map((s) => s.id);
  const blocked = incomplete.length - failed.length;
  const { maxUpdates } = state.config;
  const capped =
    state.unrepaired.length > 0
      ? `; not repaired because the limit of ${maxUpdates} repair updates was reached: ${state.unrepaired.slice(0, 5).join(', ')}`
      : '';
  const reason = `${failed.length} subtask(s) failed${failed.length ? ` (${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', …' : ''})` : ''}${blocked ? `, ${blocked} never ran` : ''}${capped}`;
  return { status: 'failed', reason, workflow, version };
}
