/**
 * The executor's interpreter: what to do next is decided by the reducer in run-state.ts; this file feeds it inputs
 * (settled attempts, updates, cancel, deadline, durability) and carries out its commands with the model, the
 * attempt runners, the inspector, the durability gate and the clock. No polling: a subtask starts in the same tick
 * its last parent is accepted.
 */
import { getEventListeners } from 'node:events';
import { WeftError, isAbortError, isWeftError } from '../errors.js';
import type { Workflow } from '../graph/workflow.js';
import type { ChatModel } from '../llm/chat-model.js';
import { activeTelemetryContext, startAttemptSpan, withTelemetryContext } from '../llm/telemetry.js';
import { anySignal } from '../llm/timeout.js';
import type { FailureReport } from '../plan/prompts.js';
import { proposeUpdate } from '../plan/update-plan.js';
import type { EarlierAttempts } from './earlier-attempts.js';
import type { RunStatus, StrategyName, WorkflowDiffSummary } from './events.js';
import { runSubtask, type AttemptOutcome, type SubtaskAttempt } from './run-subtask.js';
import type { AttemptRunner } from './attempt-runner.js';
import {
  checkRunConfig,
  createRunState,
  runOutcome,
  step,
  type AttemptError,
  type AttemptRequest,
  type EventWithoutTime,
  type RunCommand,
  type RunConfig,
  type RunInput,
  type RunState,
} from './run-state.js';
import { updatePolicy } from './update-policies.js';
import type { AttemptTools, RunTools } from './run-tools.js';
import { RUN_DEFAULTS } from '../run-defaults.js';

/**
 * The name of a registered update policy (update-policies.ts); `none` turns dynamic updates off (the baseline of
 * the fault-injection experiment).
 */
export type ExecutionStrategy = StrategyName;

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
  /** Tell a retry its earlier attempts and the verifier's reasons (default true). */
  readonly retryFeedback?: boolean;
  /** Show each agent the objectives of the subtasks that need its result (default true). */
  readonly neededBy?: boolean;
  /** Ask the inspector for the smallest change the failures require (default true). */
  readonly minimalUpdates?: boolean;
  /** The run's id: the inspector's prompt points at `weft show <runId> --attempts <subtask>` for a whole output. */
  readonly runId?: string;
  /** Fault injection: whether this attempt's output is replaced by "none". */
  readonly mask?: (taskId: string, attempt: number) => boolean;
  readonly signal?: AbortSignal;
  /**
   * The wall-time budget's deadline (runtime/deadline.ts): when it aborts, running attempts and updates are aborted and the
   * run ends `failed` with its reason (a cancel through `signal` ends it `cancelled`).
   */
  readonly deadline?: AbortSignal;
  readonly emit: (event: EventWithoutTime) => void;
  /** Called once a result is accepted, e.g. to write its artifacts. */
  readonly onAccepted?: (taskId: string, output: string) => Promise<void>;
  readonly onPlanVersion?: (
    version: number,
    workflow: Workflow,
    cause: string,
    diff: WorkflowDiffSummary,
  ) => Promise<void>;
  /** The version number of `workflow` (default 1). */
  readonly version?: number;
  /**
   * Write-ahead: when given, no subtask starts until every event emitted so far is durable, so an acceptance or
   * a plan version is on disk before anything acts on it (a process killed at any instant leaves a log it can
   * resume from).
   */
  readonly durability?: { pending(): boolean; sync(): Promise<void> };
  /** Failures recorded before a resume whose repair had not been applied yet. */
  readonly failures?: readonly FailureReport[];
  /** Each subtask's earlier attempts, folded from the log by a resume. */
  readonly earlier?: ReadonlyMap<string, EarlierAttempts>;
  /** Inspector rounds finished before a resume, and how many of them were repairs. */
  readonly rounds?: { readonly updates: number; readonly repairs: number };
  /** Runs one attempt (default `runSubtask`, in-process); a distributed run puts it on a queue instead. */
  readonly runAttempt?: (attempt: SubtaskAttempt) => Promise<AttemptOutcome>;
  /**
   * Runners of the other role kinds, keyed by `Role.kind` (e.g. `team`, registered by the team engine). An
   * `llm` role runs on `runAttempt`; a role whose kind has no runner here fails its attempt with a clear error.
   */
  readonly runners?: Readonly<Record<string, AttemptRunner>>;
  /** The run's tools (`--tools`): roles that list tools get theirs for each attempt. */
  readonly tools?: RunTools;
}

export interface ExecutionResult {
  readonly status: Exclude<RunStatus, 'running' | 'interrupted'>;
  readonly reason?: string;
  readonly workflow: Workflow;
  readonly version: number;
}

/** Spare attempt controllers kept at most (the most attempts that settle together, in practice). */
const MAX_SPARE_CONTROLLERS = 4096;
const SCHEDULE: RunInput = { type: 'schedule', logPending: false };
const SCHEDULE_UNSYNCED: RunInput = { type: 'schedule', logPending: true };

export function execute(options: ExecutionOptions): Promise<ExecutionResult> {
  return new Execution(options).start();
}

class Execution {
  private state!: RunState;
  private readonly config: RunConfig;
  /** Abort controllers of running attempts, by the reducer's handle (handles count from 1, so an array). */
  private readonly controllers: (AbortController | undefined)[] = [];
  /**
   * Controllers of attempts that settled unaborted, with no listener left on their signal: the next attempts take
   * them. A new AbortController per attempt (its signal, and the garbage it leaves) was about a fifth of a
   * 100,000-subtask run's time. One with a listener left (work of that attempt still running) is never reused, so an
   * abort meant for a later attempt reaches nothing of an earlier one that still listens.
   */
  private readonly spareControllers: AbortController[] = [];
  /** Aborts ordered for attempts whose start command had not been carried out yet. */
  private readonly abortedEarly = new Map<number, string>();
  private readonly pendingWork = new Set<Promise<unknown>>();
  private resolve!: (result: ExecutionResult) => void;
  private reject!: (error: unknown) => void;
  private pumping = false;
  private pumpAgain = false;
  private detach: () => void = () => {};
  /** What an update's calls listen to: a cancel or the deadline. */
  private readonly updateSignal: AbortSignal | undefined;
  /** The run's trace context: attempts and updates start from callbacks, whose own context is not the run's. */
  private readonly traceContext = activeTelemetryContext();

  constructor(private readonly options: ExecutionOptions) {
    this.config = checkRunConfig({
      policy: updatePolicy(options.strategy ?? RUN_DEFAULTS.strategy),
      concurrency: options.concurrency ?? Number.POSITIVE_INFINITY,
      maxAttempts: options.maxAttempts ?? RUN_DEFAULTS.maxAttempts,
      maxUpdates: options.maxUpdates ?? RUN_DEFAULTS.maxUpdates,
      durable: options.durability !== undefined,
      ...(options.retryFeedback === false ? { retryFeedback: false } : {}),
      ...(options.neededBy === false ? { neededBy: false } : {}),
    });
    this.updateSignal = anySignal(options.signal, options.deadline);
  }

  start(): Promise<ExecutionResult> {
    return new Promise<ExecutionResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      const options = this.options;
      const created = createRunState(this.config, {
        workflow: options.workflow,
        ...(options.version !== undefined ? { version: options.version } : {}),
        ...(options.failures ? { failures: options.failures } : {}),
        ...(options.rounds ? { rounds: options.rounds } : {}),
        ...(options.earlier ? { earlier: options.earlier } : {}),
      });
      this.state = created.state;
      this.perform(created.commands);
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
        const onDeadline = () => this.stop('failed', abortReason(deadline), true);
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

  private stop(status: 'failed' | 'cancelled', reason: string, abortRunning?: boolean): void {
    this.handle({ type: 'stop', status, reason, ...(abortRunning !== undefined ? { abortRunning } : {}) });
    this.pump();
  }

  /** Feeds one input to the reducer and carries out what it decides. */
  private handle(input: RunInput): void {
    this.perform(step(this.state, input));
  }

  /** One scheduling pass at a time: re-entrant calls are folded into one more pass. */
  private pump(): void {
    if (this.state.finished) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.handle(this.options.durability?.pending() ? SCHEDULE_UNSYNCED : SCHEDULE);
      } while (this.pumpAgain && !this.state.finished);
    } catch (error) {
      this.state.finished = true;
      this.reject(error);
    } finally {
      this.pumping = false;
    }
  }

  private perform(commands: readonly RunCommand[]): void {
    for (const command of commands) {
      switch (command.type) {
        case 'emit':
          this.options.emit(command.event);
          break;
        case 'start-attempt':
          this.startAttempt(command.request, command.event);
          break;
        case 'abort':
          for (const handle of command.handles) {
            const controller = this.controllers[handle];
            if (controller) controller.abort(new WeftError('ABORTED', command.reason));
            else this.abortedEarly.set(handle, command.reason);
          }
          break;
        case 'propose-update':
          this.proposeUpdate(command.workflow, command.failures, command.sequence);
          break;
        case 'sync':
          this.track(
            this.options.durability!.sync().finally(() => {
              this.handle({ type: 'synced' });
              this.pump();
            }),
          );
          break;
        case 'accepted':
          if (this.options.onAccepted) this.track(this.options.onAccepted(command.taskId, command.output));
          break;
        case 'save-plan-version':
          if (this.options.onPlanVersion)
            this.track(this.options.onPlanVersion(command.version, command.workflow, command.cause, command.diff));
          break;
        case 'finish':
          this.finish();
          break;
      }
    }
  }

  private startAttempt(request: AttemptRequest, event: EventWithoutTime): void {
    const controller = this.spareControllers.pop() ?? new AbortController();
    this.controllers[request.handle] = controller;
    const early = this.abortedEarly.get(request.handle);
    if (early !== undefined) {
      this.abortedEarly.delete(request.handle);
      controller.abort(new WeftError('ABORTED', early));
    }
    this.options.emit(event);
    const runAttempt = this.runnerFor(request.role.kind);
    const handle = request.handle;
    const span = startAttemptSpan(
      { role: request.role.name, roleKind: request.role.kind, taskId: request.id, attempt: request.attempt },
      this.traceContext,
    );
    let tools: AttemptTools | undefined;
    try {
      tools = this.options.tools?.forAttempt(request.role, request.id, request.attempt);
    } catch (error) {
      span.end({ error });
      this.track(
        Promise.resolve().then(() => this.settle({ type: 'attempt-failed', handle, error: attemptError(error) })),
      );
      return;
    }
    const work = span
      .run(() =>
        runAttempt({
          task: this.state.task,
          id: request.id,
          objective: request.objective,
          role: request.role,
          parents: request.parents,
          attempt: request.attempt,
          context: request.context,
          model: this.options.model,
          verify: this.options.verify ?? RUN_DEFAULTS.verify,
          mask: this.options.mask?.(request.id, request.attempt) ?? false,
          signal: controller.signal,
          ...(tools ? { tools } : {}),
        }),
      )
      .then(
        (outcome) => {
          span.end(
            outcome.kind === 'verified'
              ? { verdict: outcome.verdict, reason: outcome.reason }
              : { verdict: 'blocked', reason: outcome.reason },
          );
          this.settle({ type: 'attempt-settled', handle, outcome });
        },
        (error: unknown) => {
          span.end({ error });
          this.settle({ type: 'attempt-failed', handle, error: attemptError(error) });
        },
      );
    this.track(work);
  }

  private settle(input: Extract<RunInput, { type: 'attempt-settled' | 'attempt-failed' }>): void {
    const controller = this.controllers[input.handle];
    this.controllers[input.handle] = undefined;
    if (
      controller &&
      !controller.signal.aborted &&
      this.spareControllers.length < MAX_SPARE_CONTROLLERS &&
      getEventListeners(controller.signal, 'abort').length === 0
    )
      this.spareControllers.push(controller);
    this.handle(input);
    this.pump();
  }

  private proposeUpdate(workflow: Workflow, failures: readonly FailureReport[], sequence: number): void {
    // The callbacks return promises where the old executor's async merge did, so the update ends in the same tick.
    // Its model calls are children of the run's span, whichever attempt's callback started the update.
    const work = withTelemetryContext(this.traceContext, () =>
      proposeUpdate({
        model: this.options.model,
        workflow,
        failed: failures,
        candidates: this.options.updateCandidates ?? 1,
        sequence,
        ...(this.options.minimalUpdates === false ? { minimal: false } : {}),
        ...(this.options.runId !== undefined ? { runId: this.options.runId } : {}),
        ...(this.updateSignal ? { signal: this.updateSignal } : {}),
      }),
    )
      .then(
        async (result) => this.handle({ type: 'update-proposed', result }),
        (error: unknown) => {
          const failed = attemptError(error);
          if (failed.kind === 'budget') this.stop('failed', failed.message);
          else if (failed.kind !== 'abort')
            return (async () => this.handle({ type: 'update-failed', error: failed }))();
          return undefined;
        },
      )
      .finally(() => {
        this.handle({ type: 'update-ended' });
        this.pump();
      });
    this.track(work);
  }

  private finish(): void {
    this.detach();
    // Artifacts and plan versions still being written must land before the caller reads the run directory.
    void Promise.allSettled([...this.pendingWork]).then(() => this.resolve(runOutcome(this.state)));
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      this.handle({ type: 'bookkeeping-failed', message: error instanceof Error ? error.message : String(error) });
      this.pump();
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
      throw new WeftError('BAD_INPUT', `No runner for role kind "${kind}" (this run has: ${known})`, {
        location: { field: 'roles.kind' },
      });
    };
  }
}

function attemptError(error: unknown): AttemptError {
  const message = error instanceof Error ? error.message : String(error);
  if (isWeftError(error) && error.code === 'BUDGET') return { message, kind: 'budget' };
  return { message, kind: isAbortError(error) ? 'abort' : 'other' };
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return typeof reason === 'string' ? reason : 'cancelled';
}
