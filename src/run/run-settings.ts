import type { ExecutionStrategy } from './execution.js';
import type { TeamOffer } from '../plan/team-offer.js';
import type { Budget } from './metered-model.js';

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
}
