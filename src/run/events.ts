/**
 * The typed events of a run (docs/contracts.md). The store appends them; the progress view, `weft show` and the
 * dashboard read the same events. `at` is milliseconds since the run started.
 */
import type { WorkflowJson } from '../graph/workflow.js';
import type { DiscardedWork } from '../plan/merge-update.js';
import type { BudgetStopEvent, CallEvent, UsageEvent } from '../runtime/meter-events.js';

export type { BudgetStopEvent, CallEvent, DiscardedWork, UsageEvent };

export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

export type UpdateStrategy = 'on-failure' | 'concurrent' | 'after-completion';

/** A registered update policy's name (run/update-policies.ts): the built-ins, 'none' or a custom one. */
export type StrategyName = UpdateStrategy | 'none' | (string & {});

export interface CandidateSummary {
  readonly index: number;
  readonly subtasks: number;
  readonly levels: number;
  readonly parallelism: number;
  readonly dependencyComplexity: number;
  /** Why a candidate could not be used (unparsable, invalid). Absent for valid ones. */
  readonly error?: string;
}

export type Verdict = 'accept' | 'retry' | 'replan';

/** One earlier attempt as a retry was told of it: its verdict (`blocked`: it could not proceed) and the reason. */
export interface AttemptFeedback {
  readonly attempt: number;
  readonly verdict: string;
  readonly reason: string;
}

export type WeftEvent =
  | {
      type: 'run-start';
      at: number;
      runId: string;
      task: string;
      model: string;
      strategy: StrategyName;
      options: Record<string, unknown>;
    }
  /** For updates, `round` numbers the inspector rounds and `repair` says whether the round repaired failures. */
  | {
      type: 'plan-candidates';
      at: number;
      purpose: 'plan' | 'update';
      candidates: CandidateSummary[];
      round?: number;
      repair?: boolean;
      /**
       * Failed subtasks the round sends back to run, changed plan or not. A round that changes nothing leaves no
       * other trace of this, so a resume needs it to not ask the inspector again.
       */
      rerun?: string[];
      /** The index of the candidate the round chose (update rounds; the initial plan's is on `plan-chosen`). */
      chosen?: number;
    }
  | { type: 'plan-chosen'; at: number; version: number; index: number; workflow: WorkflowJson }
  /**
   * `feedback`: for a retry, what it was told of the earlier attempts that were not accepted (latest last; their
   * outputs are in their `task-end` events). Absent on a first attempt and when retry feedback is off.
   */
  | {
      type: 'task-start';
      at: number;
      taskId: string;
      attempt: number;
      agent: string;
      clone: number;
      feedback?: AttemptFeedback[];
    }
  /**
   * `outcome` marks ends that are not the subtask's own failure: `discarded` (a plan update replaced it),
   * `aborted` (the run was cancelled), `refused` (the budget refused its call).
   */
  | {
      type: 'task-end';
      at: number;
      taskId: string;
      attempt: number;
      status: 'completed' | 'failed';
      output?: string;
      error?: string;
      /** Fault injection handed "none" on instead of the attempt's result; `produced` is what the agent wrote. */
      masked?: boolean;
      produced?: string;
      outcome?: 'discarded' | 'aborted' | 'refused';
    }
  | { type: 'task-verify'; at: number; taskId: string; attempt: number; verdict: Verdict; reason: string }
  | {
      type: 'plan-update';
      at: number;
      version: number;
      cause: string;
      diff: WorkflowDiffSummary;
      workflow: WorkflowJson;
      /** Completed or running subtasks whose work this version discarded, and why; absent when none. */
      discarded?: readonly DiscardedWork[];
    }
  /**
   * A check of the finished run that is independent of its verifier (docs/algorithms.md#fault-injection): the user's
   * command on the artifacts folder, or a judge model. `detail` is the command's output tail or the judge's reason.
   */
  | {
      type: 'task-check';
      at: number;
      method: 'command' | 'judge';
      passed: boolean;
      detail: string;
      /** The command, or the judge model's spec (without secrets). */
      by: string;
      exitCode?: number | null;
      timedOut?: boolean;
      /** Characters of the command's output dropped to keep `detail` bounded. */
      droppedChars?: number;
    }
  | { type: 'artifact'; at: number; taskId: string; path: string; bytes: number }
  | { type: 'artifact-refused'; at: number; taskId: string; path: string; reason: string }
  /** One model call (runtime/meter-events.ts). */
  | CallEvent
  /**
   * A tool call of a subtask's tool loop, durable before the tool runs. `sequence` numbers the calls of one attempt
   * (from 0) and identifies it for replay; `args` has the tool's secret arguments redacted.
   */
  | {
      type: 'tool-call';
      at: number;
      taskId: string;
      attempt: number;
      sequence: number;
      /** The model call of the loop that asked for it (from 0). */
      step: number;
      callId: string;
      name: string;
      args: unknown;
      idempotent?: boolean;
      /** A model answered it in place of the API (a `kind: simulated` tool). */
      simulated?: boolean;
    }
  /** How a tool call ended: its result as the agent saw it (`truncated` when cut), or its error. */
  | {
      type: 'tool-result';
      at: number;
      taskId: string;
      attempt: number;
      sequence: number;
      name: string;
      ok: boolean;
      result?: unknown;
      truncated?: boolean;
      error?: string;
      /** TOOL, TIMEOUT, or BAD_CALL (an unknown tool, arguments that are not JSON). */
      code?: string;
      durationMs: number;
    }
  /** A run continued after an interruption; `previousStatus` is what the store said. */
  | { type: 'run-resume'; at: number; previousStatus: string; replayable: number; completed: number }
  /** A subtask run by a DyLAN team (team/team-attempt.ts): what the team did, before its `task-end`. */
  | ({ type: 'team'; at: number } & TeamSummary)
  | BudgetStopEvent
  | UsageEvent
  | { type: 'run-end'; at: number; status: RunStatus; reason?: string };

export type WeftEventType = WeftEvent['type'];

/** A compact, serialisable account of what changed between two plan versions. */
export interface WorkflowDiffSummary {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  readonly rewired: readonly string[];
}

/** One team run for a subtask, as the `team` event records it and report.md shows it. */
export interface TeamSummary {
  readonly taskId: string;
  readonly attempt: number;
  /** The role that names the team, its team file (as resolved) and the team's name in it. */
  readonly role: string;
  readonly file: string;
  readonly team: string;
  /** The key importance scores are kept under, with the team name. */
  readonly taskType: string;
  /** How answers were compared (`text` unless the team file says otherwise). */
  readonly kind: string;
  /** Every agent of the team file, and the ones that took part (all of them unless `selection.optimized`). */
  readonly pool: readonly string[];
  readonly members: readonly string[];
  readonly selection: TeamSelection;
  /** Each layer's nodes: agent and answer (long answers clipped). */
  readonly layers: readonly (readonly {
    readonly agent: string;
    readonly answer: string;
    readonly ratingsParsed: boolean;
  }[])[];
  /** The team's final answer (clipped like the layers; the subtask's whole output is in `task-end`). */
  readonly answer: string;
  readonly stoppedAt: number;
  readonly stopReason: 'consensus' | 'max-steps';
  readonly reformation?: TeamReformation;
  /** Σ_t I(t, a) per agent for this query. */
  readonly importance: Readonly<Record<string, number>>;
  /** Model calls the team made (agents and ranker); they are also `model-call` events. */
  readonly calls: number;
  readonly ratingFallbacks: number;
  readonly rankerFallbacks: number;
  /** Whether this query's importance was added to the stored scores, and if not, why. */
  readonly scores: { readonly saved: boolean; readonly reason?: string };
}

/**
 * The team's reformation as the log records it: the shape of the team engine's Reformation (team/team.ts), kept
 * here because it is part of the log format, which run/ owns.
 */
export interface TeamReformation {
  readonly afterStep: number;
  readonly kept: readonly string[];
  readonly dropped: readonly string[];
  /** Why: the ranker's order, or the visible fallback when its answer could not be used. */
  readonly reason: string;
  readonly fallback: boolean;
}

/** Which agents of a team file ran, and why (stored importance scores pick an optimised team). */
export interface TeamSelection {
  readonly optimized: boolean;
  readonly reason: string;
  /** The stored scores the choice was made from (best first), when there were any. */
  readonly scores?: readonly { readonly agent: string; readonly mean: number; readonly queries: number }[];
  /** Agents of the pool that were left out. */
  readonly leftOut: readonly string[];
}
