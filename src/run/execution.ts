/**
 * The executor (SPEC §1.3–1.4): event-driven ready-set scheduling, agent clones, verification verdicts and the
 * update strategies. No polling: a subtask starts in the same tick its last parent is accepted.
 *
 * State is kept mutable per subtask (not as immutable workflow snapshots) so that each completion costs
 * O(children), which is what makes 10,000-node runs cheap. `snapshot()` builds the immutable view when an update
 * or the caller needs one.
 */
import { WeftError, isAbortError, isWeftError } from '../errors.js';
import { diffWorkflows, toWorkflowJson } from '../graph/index.js';
import type { Role, SubtaskStatus, Workflow } from '../graph/workflow.js';
import type { ChatModel } from '../llm/chat-model.js';
import { anySignal } from '../llm/timeout.js';
import { mergeUpdate } from '../plan/merge-update.js';
import { proposeUpdate } from '../plan/update-plan.js';
import type { RunStatus, UpdateStrategy, WeftEvent, WorkflowDiffSummary } from './events.js';
import { candidateSummary } from './candidate-summary.js';
import { ClonePool } from './clone-pool.js';
import { runSubtask, type AttemptOutcome, type SubtaskAttempt } from './run-subtask.js';
import type { AttemptRunner } from './attempt-runner.js';

/** `none` turns dynamic updates off (the baseline of the fault-injection experiment). */
export type ExecutionStrategy = UpdateStrategy | 'none';

type EventWithoutTime = WeftEvent extends infer E ? (E extends WeftEvent ? Omit<E, 'at'> : never) : never;

export interface ExecutionOptions {
  readonly workflow: Workflow;
  readonly model: ChatModel;
  readonly strategy?: ExecutionStrategy;
  /** Global cap on subtasks running at once (default: no cap). */
  readonly concurrency?: number;
  /** Starts allowed per subtask before it is given up (default 3). */
  readonly maxAttempts?: number;
  /** Plan updates allowed per run (default 20). */
  readonly maxUpdates?: number;
  /** Candidate revisions per update (default 1). */
  readonly updateCandidates?: number;
  /** Double-check each result (default true). */
  readonly verify?: boolean;
  /** Fault injection: whether this attempt's output is replaced by "none". */
  readonly mask?: (taskId: string, attempt: number) => boolean;
  readonly signal?: AbortSignal;
  /**
   * The wall-time budget's deadline (deadline.ts): when it aborts, running attempts and updates are aborted and the
   * run ends `failed` with its reason (a cancel through `signal` ends it `cancelled`).
   */
  readonly deadline?: AbortSignal;
  readonly emit: (event: EventWithoutTime) => void;
  /** Called once a result is accepted, e.g. to write its artifacts. */
  readonly onAccepted?: (taskId: string, output: string) => Promise<void>;
  readonly onPlanVersion?: (version: number, workflow: Workflow, cause: string, diff: WorkflowDiffSummary) => Promise<void>;
  /** The version number of `workflow` (default 1). */
  readonly version?: number;
  /**
   * Write-ahead: when given, no subtask starts until every event emitted so far is durable, so an acceptance or
   * a plan version is on disk before anything acts on it (a process killed at any instant leaves a log it can
   * resume from).
   */
  readonly durability?: { pending(): boolean; sync(): Promise<void> };
  /** Failures recorded before a resume whose repair had not been applied yet. */
  readonly failures?: readonly { id: string; reason: string }[];
  /** Inspector rounds finished before a resume, and how many of them were repairs. */
  readonly rounds?: { readonly updates: number; readonly repairs: number };
  /** Runs one attempt (default `runSubtask`, in-process); a distributed run puts it on a queue instead. */
  readonly runAttempt?: (attempt: SubtaskAttempt) => Promise<AttemptOutcome>;
  /**
   * Runners of the other role kinds, keyed by `Role.kind` (e.g. `team`, registered by the team engine). An
   * `llm` role runs on `runAttempt`; a role whose kind has no runner here fails its attempt with a clear error.
   */
  readonly runners?: Readonly<Record<string, AttemptRunner>>;
}

export interface ExecutionResult {
  readonly status: Exclude<RunStatus, 'running' | 'interrupted'>;
  readonly reason?: string;
  readonly workflow: Workflow;
  readonly version: number;
}

interface TaskState {
  readonly id: string;
  objective: string;
  agent: string;
  dependsOn: string[];
  children: string[];
  status: SubtaskStatus;
  output: string | undefined;
  attempts: number;
  pendingParents: number;
  /** Bumped when the subtask is discarded or replaced, so a late result of the old run is ignored. */
  generation: number;
  controller: AbortController | undefined;
  clone: number;
  /** The role whose clone runs the subtask now (the agent may be reassigned while it runs). */
  cloneAgent: string;
}

export function execute(options: ExecutionOptions): Promise<ExecutionResult> {
  return new Execution(options).start();
}

class Execution {
  private readonly strategy: ExecutionStrategy;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly maxUpdates: number;
  private readonly verify: boolean;
  private readonly task: string;
  private tasks = new Map<string, TaskState>();
  private order: string[] = [];
  private roles = new Map<string, Role>();
  private ready: string[] = [];
  private readyHead = 0;
  private running = 0;
  private readonly clones = new Map<string, ClonePool>();
  private pendingFailures: { id: string; reason: string }[] = [];
  private updateRequested = false;
  private updating = false;
  /** Inspector rounds so far (each gets its own seed key). */
  private updates = 0;
  /** Rounds that repaired failures: these, not routine reviews, count against `maxUpdates`. */
  private repairs = 0;
  private readonly unrepaired: string[] = [];
  private version: number;
  private stopping: { status: 'failed' | 'cancelled'; reason: string } | undefined;
  private readonly pendingWork = new Set<Promise<unknown>>();
  private finished = false;
  private resolve!: (result: ExecutionResult) => void;
  private reject!: (error: unknown) => void;
  private pumping = false;
  private pumpAgain = false;
  private detach: () => void = () => {};
  private syncing = false;
  private bookkeepingError: string | undefined;
  /** What an update's calls listen to: a cancel or the deadline. */
  private readonly updateSignal: AbortSignal | undefined;

  constructor(private readonly options: ExecutionOptions) {
    this.strategy = options.strategy ?? 'on-failure';
    this.concurrency = options.concurrency ?? Number.POSITIVE_INFINITY;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.maxUpdates = options.maxUpdates ?? 20;
    this.verify = options.verify ?? true;
    this.version = options.version ?? 1;
    this.updates = options.rounds?.updates ?? 0;
    this.repairs = options.rounds?.repairs ?? 0;
    this.task = options.workflow.task;
    if (!(this.concurrency >= 1)) throw new WeftError('BAD_INPUT', `Expected concurrency >= 1, got ${this.concurrency}`, { location: { field: 'concurrency' } });
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) throw new WeftError('BAD_INPUT', `Expected maxAttempts >= 1, got ${this.maxAttempts}`, { location: { field: 'maxAttempts' } });
    this.updateSignal = anySignal(options.signal, options.deadline);
  }

  start(): Promise<ExecutionResult> {
    return new Promise<ExecutionResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      // A given plan may mark subtasks failed (e.g. an earlier run's); a fresh run gives them their turn again.
      const initial = this.options.workflow;
      const repairing = new Set((this.options.failures ?? []).map((failure) => failure.id));
      this.load({ ...initial, subtasks: initial.subtasks.map((s) => (s.status === 'failed' && !repairing.has(s.id) ? { ...s, status: 'not started' as const } : s)) });
      for (const failure of this.options.failures ?? []) {
        const state = this.tasks.get(failure.id);
        if (state?.status === 'failed') this.fail(state, failure.reason);
      }
      const signal = this.options.signal;
      if (signal) {
        if (signal.aborted) this.stop('cancelled', 'cancelled before start');
        else {
          const onAbort = () => this.stop('cancelled', abortReason(signal));
          signal.addEventListener('abort', onAbort, { once: true });
          this.detach = () => signal.removeEventListener('abort', onAbort);
        }
      }
      const deadline = this.options.deadline;
      if (deadline) {
        // Time is up: what runs now is cut short (unlike a spent call budget, where running calls may finish).
        const onDeadline = () => this.stop('failed', abortReason(deadline), { abortRunning: true });
        if (deadline.aborted) onDeadline();
        else {
          deadline.addEventListener('abort', onDeadline, { once: true });
          const detachSignal = this.detach;
          this.detach = () => {
            detachSignal();
            deadline.removeEventListener('abort', onDeadline);
          };
        }
      }
      this.pump();
    });
  }

  /**
   * Ends the run once the running subtasks settle. Cancelling and the deadline abort their calls; any other stop
   * (a spent call budget, a failed write) lets them finish, because those calls are paid for and their results kept.
   */
  stop(status: 'failed' | 'cancelled', reason: string, { abortRunning = status === 'cancelled' } = {}): void {
    if (this.stopping || this.finished) return;
    this.stopping = { status, reason };
    if (abortRunning) {
      for (const state of this.tasks.values()) state.controller?.abort(new WeftError('ABORTED', reason));
    }
    this.pump();
  }

  private load(workflow: Workflow): void {
    const previous = this.tasks;
    this.tasks = new Map();
    this.order = workflow.subtasks.map((s) => s.id);
    for (const role of workflow.roles) this.roles.set(role.name, role);
    for (const subtask of workflow.subtasks) {
      const old = previous.get(subtask.id);
      const keepRunning = old?.status === 'in progress' && subtask.status === 'in progress';
      if (keepRunning && old) {
        old.dependsOn = [...subtask.dependsOn];
        old.agent = subtask.agent;
        old.children = [];
        this.tasks.set(subtask.id, old);
        continue;
      }
      // A plan file may carry 'in progress' from an earlier run; nothing runs it here, so it starts afresh.
      const status: SubtaskStatus = subtask.status === 'in progress' ? 'not started' : subtask.status;
      this.tasks.set(subtask.id, {
        id: subtask.id,
        objective: subtask.objective,
        agent: subtask.agent,
        dependsOn: [...subtask.dependsOn],
        children: [],
        status,
        output: status === 'completed' ? subtask.output : undefined,
        attempts: subtask.attempts,
        pendingParents: 0,
        generation: (old?.generation ?? 0) + 1,
        controller: undefined,
        clone: -1,
        cloneAgent: subtask.agent,
      });
    }
    // Whatever ran under the old plan and is not kept is discarded: abort it and ignore its late result.
    for (const old of previous.values()) {
      if (old.status === 'in progress' && this.tasks.get(old.id) !== old) {
        old.generation += 1;
        old.controller?.abort(new WeftError('ABORTED', 'discarded by a plan update'));
      }
    }
    this.ready = [];
    this.readyHead = 0;
    for (const id of this.order) {
      const state = this.tasks.get(id)!;
      for (const parent of state.dependsOn) this.tasks.get(parent)!.children.push(id);
      state.pendingParents = state.dependsOn.filter((parent) => this.tasks.get(parent)!.status !== 'completed').length;
    }
    for (const id of this.order) this.enqueueIfReady(this.tasks.get(id)!);
  }

  private enqueueIfReady(state: TaskState): void {
    if (state.status === 'not started' && state.pendingParents === 0) this.ready.push(state.id);
  }

  /** The one place that decides what happens next. Re-entrant calls are folded into one more pass. */
  private pump(): void {
    if (this.finished) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.step();
      } while (this.pumpAgain && !this.finished);
    } catch (error) {
      this.finished = true;
      this.reject(error);
    } finally {
      this.pumping = false;
    }
  }

  private step(): void {
    if (this.stopping) {
      if (this.running === 0 && !this.updating) this.finish();
      return;
    }
    const barrier = this.strategy === 'after-completion' && (this.updateRequested || this.updating);
    if (this.updateRequested && !this.updating && (this.strategy !== 'after-completion' || this.running === 0)) {
      this.startUpdate();
    }
    const startable = !barrier && this.running < this.concurrency && this.readyHead < this.ready.length;
    if (startable && this.options.durability?.pending()) {
      // Starting work is the effect of what was recorded: wait until the record is on disk.
      if (!this.syncing) {
        this.syncing = true;
        this.track(this.options.durability.sync().finally(() => {
          this.syncing = false;
          this.pump();
        }));
      }
    } else if (startable) {
      while (this.running < this.concurrency && this.readyHead < this.ready.length) {
        const state = this.tasks.get(this.ready[this.readyHead++]!);
        if (!state || state.status !== 'not started' || state.pendingParents !== 0) continue;
        if (state.attempts >= this.maxAttempts) {
          // A revision can ask to rerun a subtask that has no attempts left: say so instead of failing silently.
          state.status = 'failed';
          this.options.emit({ type: 'task-end', taskId: state.id, attempt: state.attempts, status: 'failed', error: `attempt limit of ${this.maxAttempts} reached` });
          continue;
        }
        this.startTask(state);
      }
    }
    if (this.running === 0 && !this.updating && !this.updateRequested && !this.syncing && this.readyHead >= this.ready.length) this.finish();
  }

  private startTask(state: TaskState): void {
    state.status = 'in progress';
    state.attempts += 1;
    state.generation += 1;
    state.controller = new AbortController();
    state.cloneAgent = state.agent;
    state.clone = this.acquireClone(state.agent);
    this.running += 1;
    const attempt = state.attempts;
    const generation = state.generation;
    const role = this.roles.get(state.agent) ?? { name: state.agent, prompt: `You are the ${state.agent}.`, kind: 'llm' as const };
    this.options.emit({ type: 'task-start', taskId: state.id, attempt, agent: state.agent, clone: state.clone });
    const parents = state.dependsOn.map((id) => {
      const parent = this.tasks.get(id)!;
      return { id, objective: parent.objective, output: parent.output ?? '' };
    });
    const runAttempt = this.runnerFor(role.kind);
    const work = runAttempt({
      task: this.task,
      id: state.id,
      objective: state.objective,
      role,
      parents,
      attempt,
      model: this.options.model,
      verify: this.verify,
      mask: this.options.mask?.(state.id, attempt) ?? false,
      signal: state.controller.signal,
    }).then(
      (outcome) => this.settle(state, generation, attempt, outcome, undefined),
      (error: unknown) => this.settle(state, generation, attempt, undefined, error),
    );
    this.track(work);
  }

  private settle(state: TaskState, generation: number, attempt: number, outcome: AttemptOutcome | undefined, error: unknown): void {
    this.running -= 1;
    this.releaseClone(state.cloneAgent, state.clone);
    state.controller = undefined;
    if (state.generation !== generation || this.tasks.get(state.id) !== state) {
      this.options.emit({ type: 'task-end', taskId: state.id, attempt, status: 'failed', error: 'discarded by a plan update', outcome: 'discarded' });
      this.pump();
      return;
    }
    if (error !== undefined) this.settleError(state, attempt, error);
    else if (outcome) this.settleOutcome(state, attempt, outcome);
    if (this.strategy === 'concurrent' || this.strategy === 'after-completion') this.requestUpdate();
    this.pump();
  }

  private settleOutcome(state: TaskState, attempt: number, outcome: AttemptOutcome): void {
    if (outcome.kind === 'blocked') {
      this.options.emit({ type: 'task-end', taskId: state.id, attempt, status: 'failed', output: outcome.output, error: `cannot proceed: ${outcome.reason}` });
      this.fail(state, `the agent cannot proceed: ${outcome.reason}`);
      return;
    }
    this.options.emit({ type: 'task-end', taskId: state.id, attempt, status: 'completed', output: outcome.output, ...(outcome.masked ? { masked: true } : {}) });
    this.options.emit({ type: 'task-verify', taskId: state.id, attempt, verdict: outcome.verdict, reason: outcome.reason });
    if (outcome.verdict === 'accept') {
      this.accept(state, outcome.output);
    } else if (outcome.verdict === 'retry' && state.attempts < this.maxAttempts) {
      state.status = 'not started';
      this.ready.push(state.id);
    } else {
      this.fail(state, outcome.reason || `verification answered ${outcome.verdict}`);
    }
  }

  private settleError(state: TaskState, attempt: number, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (isWeftError(error) && error.code === 'BUDGET') {
      // The refused call never ran: the subtask is unfinished, not failed.
      this.options.emit({ type: 'task-end', taskId: state.id, attempt, status: 'failed', error: message, outcome: 'refused' });
      state.status = 'not started';
      this.stop('failed', message);
      return;
    }
    if (this.stopping && isAbortError(error)) {
      this.options.emit({ type: 'task-end', taskId: state.id, attempt, status: 'failed', error: message, outcome: 'aborted' });
      state.status = 'not started';
      return;
    }
    this.options.emit({ type: 'task-end', taskId: state.id, attempt, status: 'failed', error: message });
    this.fail(state, message);
  }

  private accept(state: TaskState, output: string): void {
    state.status = 'completed';
    state.output = output;
    for (const childId of state.children) {
      const child = this.tasks.get(childId)!;
      child.pendingParents -= 1;
      this.enqueueIfReady(child);
    }
    if (this.options.onAccepted) this.track(this.options.onAccepted(state.id, output));
  }

  private fail(state: TaskState, reason: string): void {
    state.status = 'failed';
    if (this.strategy === 'none') return;
    if (this.repairs >= this.maxUpdates) {
      this.unrepaired.push(state.id);
      return;
    }
    this.pendingFailures.push({ id: state.id, reason });
    this.requestUpdate();
  }

  private requestUpdate(): void {
    if (this.strategy === 'none') return;
    // Routine reviews (concurrent, after-completion) are bounded by the completions that trigger them.
    if (this.pendingFailures.length > 0 && this.repairs >= this.maxUpdates) return;
    this.updateRequested = true;
  }

  private startUpdate(): void {
    this.updateRequested = false;
    this.updating = true;
    this.updates += 1;
    const failures = this.pendingFailures.splice(0);
    if (failures.length > 0) this.repairs += 1;
    const sequence = this.updates;
    const before = this.snapshot();
    const work = proposeUpdate({
      model: this.options.model,
      workflow: before,
      failed: failures,
      candidates: this.options.updateCandidates ?? 1,
      sequence,
      ...(this.updateSignal ? { signal: this.updateSignal } : {}),
    }).then(
      (result) =>
        this.applyUpdate(failures, result.proposal, (rerun) =>
          this.options.emit({
            type: 'plan-candidates',
            purpose: 'update',
            candidates: result.candidates.map(candidateSummary),
            round: sequence,
            repair: failures.length > 0,
            ...(rerun.length > 0 ? { rerun } : {}),
            ...(result.chosenIndex >= 0 ? { chosen: result.chosenIndex } : {}),
          }),
        ),
      (error: unknown) => {
        if (isWeftError(error) && error.code === 'BUDGET') this.stop('failed', error.message);
        else if (!isAbortError(error)) return this.applyUpdate(failures, undefined);
        return undefined;
      },
    ).finally(() => {
      this.updating = false;
      this.pump();
    });
    this.track(work);
  }

  /** `logRound` logs the round (with the subtasks it reruns) in the same tick as its plan-update, if any. */
  private async applyUpdate(
    failures: readonly { id: string; reason: string }[],
    proposal: Parameters<typeof mergeUpdate>[1],
    logRound: (rerun: string[]) => void = () => {},
  ): Promise<void> {
    if (this.stopping) {
      logRound([]);
      return;
    }
    const live = this.snapshot();
    let merged = mergeUpdate(live, proposal);
    let note = '';
    if (!merged.ok) {
      note = ` (revision ignored: ${merged.issues.map((i) => i.message).join('; ')})`;
      merged = mergeUpdate(live, undefined);
      if (!merged.ok) throw new WeftError('INTERNAL', 'merging a valid workflow with itself failed');
    }
    // Only the failures this update was asked about run again now; later ones wait for their own update.
    const rerun = new Set(failures.filter((f) => (this.tasks.get(f.id)?.attempts ?? 0) < this.maxAttempts).map((f) => f.id));
    logRound([...rerun].filter((id) => merged.ok && merged.workflow.subtasks.some((s) => s.id === id)));
    const next: Workflow = {
      ...merged.workflow,
      subtasks: merged.workflow.subtasks.map((s) => {
        const wasFailed = this.tasks.get(s.id)?.status === 'failed';
        const unchanged = this.tasks.get(s.id)?.objective === s.objective;
        return wasFailed && unchanged && !rerun.has(s.id) ? { ...s, status: 'failed' as const } : s;
      }),
    };
    this.load(next);
    // Failures queued while this update ran are moot when it already replaced or restarted their subtask.
    this.pendingFailures = this.pendingFailures.filter((failure) => this.tasks.get(failure.id)?.status === 'failed');
    if (this.pendingFailures.length === 0 && this.strategy === 'on-failure') this.updateRequested = false;
    const diff = diffWorkflows(live, next);
    const changed = diff.added.length + diff.removed.length + diff.changed.length + diff.rewired.length > 0;
    if (!changed) return;
    this.version += 1;
    const cause = failures.length > 0
      ? `${failures.map((f) => `${f.id}: ${f.reason}`).join('; ')}${note}`
      : `${this.strategy} review${note}`;
    const summary: WorkflowDiffSummary = { added: diff.added, removed: diff.removed, changed: diff.changed, rewired: diff.rewired };
    this.options.emit({ type: 'plan-update', version: this.version, cause, diff: summary, workflow: toWorkflowJson(next) });
    // The round ends here, with its revision merged and logged. Saving the version is bookkeeping that must not
    // hold the round open: failures arriving during the save would wait for a later round, so how many failures a
    // round batches (and so the plans) depended on disk speed, and a resumed run could end differently.
    if (this.options.onPlanVersion) this.track(this.options.onPlanVersion(this.version, next, cause, summary));
  }

  snapshot(): Workflow {
    return {
      task: this.task,
      roles: [...this.roles.values()],
      subtasks: this.order.map((id) => {
        const s = this.tasks.get(id)!;
        return {
          id: s.id,
          objective: s.objective,
          agent: s.agent,
          dependsOn: s.dependsOn,
          status: s.status,
          attempts: s.attempts,
          ...(s.output !== undefined ? { output: s.output } : {}),
        };
      }),
    };
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.detach();
    // Artifacts and plan versions still being written must land before the caller reads the run directory.
    void Promise.allSettled([...this.pendingWork]).then(() => {
      const workflow = this.snapshot();
      const incomplete = workflow.subtasks.filter((s) => s.status !== 'completed');
      if (this.bookkeepingError !== undefined && this.stopping?.status !== 'cancelled') {
        this.resolve({ status: 'failed', reason: this.stopping?.reason ?? this.bookkeepingError, workflow, version: this.version });
      } else if (this.stopping) {
        this.resolve({ status: this.stopping.status, reason: this.stopping.reason, workflow, version: this.version });
      } else if (incomplete.length === 0) {
        this.resolve({ status: 'completed', workflow, version: this.version });
      } else {
        const failed = incomplete.filter((s) => s.status === 'failed').map((s) => s.id);
        const blocked = incomplete.length - failed.length;
        const capped = this.unrepaired.length > 0 ? `; not repaired because the limit of ${this.maxUpdates} repair updates was reached: ${this.unrepaired.slice(0, 5).join(', ')}` : '';
        const reason = `${failed.length} subtask(s) failed${failed.length ? ` (${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', …' : ''})` : ''}${blocked ? `, ${blocked} never ran` : ''}${capped}`;
        this.resolve({ status: 'failed', reason, workflow, version: this.version });
      }
    });
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      // A failure in bookkeeping (artifacts, plan versions) must not be swallowed, even one that lands after the
      // last subtask: it stops the run now and decides its status at the end.
      const message = error instanceof Error ? error.message : String(error);
      this.bookkeepingError ??= message;
      this.stop('failed', message);
    });
    this.pendingWork.add(tracked);
    void tracked.finally(() => this.pendingWork.delete(tracked));
  }

  private runnerFor(kind: string): AttemptRunner {
    if (kind === 'llm') return this.options.runAttempt ?? runSubtask;
    const runner = this.options.runners?.[kind];
    if (runner) return runner;
    const known = ['llm', ...Object.keys(this.options.runners ?? {})].join(', ');
    return async () => {
      throw new WeftError('BAD_INPUT', `No runner for role kind "${kind}" (this run has: ${known})`, { location: { field: 'roles.kind' } });
    };
  }

  private acquireClone(agent: string): number {
    let pool = this.clones.get(agent);
    if (!pool) this.clones.set(agent, (pool = new ClonePool()));
    return pool.acquire();
  }

  private releaseClone(agent: string, clone: number): void {
    this.clones.get(agent)?.release(clone);
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return typeof reason === 'string' ? reason : 'cancelled';
}

