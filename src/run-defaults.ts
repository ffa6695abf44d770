/**
 * The defaults of a run, for help texts and the CLI (which leaves an absent flag absent and lets
 * resolveRunSettings fill it). A leaf like errors.ts: the CLI's start-up reads it without loading any run code.
 */
export const RUN_DEFAULTS = {
  strategy: 'on-failure',
  candidates: 3,
  maxAttempts: 3,
  verify: true,
  /** Flow's prompt scope (docs/algorithms.md#prompt-scope): each part on by default. */
  retryFeedback: true,
  plannerScope: true,
  neededBy: true,
  minimalUpdates: true,
  /** Plan updates that repair failures, per run. */
  maxUpdates: 20,
} as const;
