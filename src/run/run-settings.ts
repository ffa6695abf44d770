/**
 * How a run is started, and the one place its defaults are filled in (resolveRunSettings): a new run records the
 * resolved settings in its `run-start` event, and a resume resolves what it finds there, so a run recorded by an
 * older version (without, say, `maxAttempts`) continues with the same defaults.
 */
import type { ExecutionStrategy } from './execution.js';
import type { TeamOffer } from '../plan/team-offer.js';
import type { Budget } from '../runtime/budget.js';
import { RUN_DEFAULTS } from '../run-defaults.js';

/** How a run was started, recorded in its `run-start` event so that a resume continues it the same way. */
export interface RunSettings {
  readonly strategy?: ExecutionStrategy;
  readonly candidates?: number;
  readonly updateCandidates?: number;
  readonly concurrency?: number | null;
  readonly maxAttempts?: number;
  readonly verify?: boolean;
  readonly budget?: Budget;
  readonly plan?: 'given' | 'generated';
  readonly injectMask?: { readonly probability: number; readonly seed: number };
  /** The absolute folder team files resolve against (the plan file's), so a resume finds the same files. */
  readonly teamBase?: string;
  /** Agent teams offered to the planner (`--team`), so that a resume that must still plan offers the same ones. */
  readonly teams?: readonly TeamOffer[];
  /** Model calls per tool loop that may ask for tools (default 8). */
  readonly maxToolSteps?: number;
  /** The tools file the run was started with (absolute), so that a resume loads the same tools. */
  readonly toolsFile?: string;
  /** The plan file whose own `tools:` section the run used (absolute), loaded again by a resume. */
  readonly planToolsFile?: string;
  /**
   * Flow's prompt scope as the authors' code has it (docs/algorithms.md#prompt-scope), each on unless false: a retry
   * is told its earlier attempts and the verifier's reasons; the planner plans implementation subtasks only, each
   * with an output format; agents see the objectives of the subtasks that need their result; the inspector is asked
   * for minimal changes. A run recorded before these existed resumes with them on.
   */
  readonly retryFeedback?: boolean;
  readonly plannerScope?: boolean;
  readonly neededBy?: boolean;
  readonly minimalUpdates?: boolean;
  /** How the finished run's task success is judged, independently of its verifier (`--check`, `--judge-model`). */
  readonly taskCheck?: TaskCheckSettings;
}

export interface TaskCheckSettings {
  /** A shell command run in the artifacts folder: exit status 0 means the task succeeded. */
  readonly command?: string;
  /** A model spec (without secrets) asked whether the result accomplishes the task. */
  readonly judgeModel?: string;
  /** The deadline of each check, in ms. */
  readonly timeoutMs: number;
}

/** RunSettings with every default filled in. */
export interface ResolvedRunSettings extends RunSettings {
  readonly strategy: ExecutionStrategy;
  /** Plan candidates (docs/algorithms.md#planning: the best of K). */
  readonly candidates: number;
  /**
   * Candidate revisions per plan update (docs/algorithms.md#plan-updates: chosen by the same rule as plans); default
   * `candidates`.
   */
  readonly updateCandidates: number;
  /** Subtasks running at once; null: as many as are ready. */
  readonly concurrency: number | null;
  readonly maxAttempts: number;
  readonly verify: boolean;
  readonly budget: Budget;
  readonly retryFeedback: boolean;
  readonly plannerScope: boolean;
  readonly neededBy: boolean;
  readonly minimalUpdates: boolean;
}

export { RUN_DEFAULTS };
// The defaults live in a leaf (run-defaults.ts) so that the CLI's help needs no run code; they must still fit.
RUN_DEFAULTS satisfies Partial<ResolvedRunSettings>;

export function resolveRunSettings(partial: RunSettings = {}): ResolvedRunSettings {
  const candidates = partial.candidates ?? RUN_DEFAULTS.candidates;
  // Ranges are checked where the values are used (planTask, execute), as before: a run with a bad value fails.
  return {
    ...partial,
    strategy: partial.strategy ?? RUN_DEFAULTS.strategy,
    candidates,
    updateCandidates: partial.updateCandidates ?? candidates,
    concurrency: partial.concurrency ?? null,
    maxAttempts: partial.maxAttempts ?? RUN_DEFAULTS.maxAttempts,
    verify: partial.verify ?? RUN_DEFAULTS.verify,
    budget: partial.budget ?? {},
    retryFeedback: partial.retryFeedback ?? RUN_DEFAULTS.retryFeedback,
    plannerScope: partial.plannerScope ?? RUN_DEFAULTS.plannerScope,
    neededBy: partial.neededBy ?? RUN_DEFAULTS.neededBy,
    minimalUpdates: partial.minimalUpdates ?? RUN_DEFAULTS.minimalUpdates,
  };
}
