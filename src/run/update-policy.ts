/**
 * When a run asks the inspector for a plan update (docs/design.md, "Strategies"). The executor's reducer
 * (run-state.ts) consults only this interface, so a new strategy is one file in policies/ plus one line in
 * update-policies.ts.
 */
export interface UpdatePolicy {
  /** The name `--strategy` takes and `run-start` records. */
  readonly name: string;
  /** False turns updates off: failures stay failed and the inspector is never asked (the fault baseline). */
  readonly updates: boolean;
  /**
   * Whether an attempt that settled (accepted, retried or failed; not a discarded one) asks for a routine review.
   * `settled` numbers such attempts in this execution, from 1. Failures ask for a repair regardless.
   */
  reviewAfterAttempt(settled: number): boolean;
  /** Whether no subtask starts while an update is asked for or running, and the update waits for running ones. */
  readonly barrier: boolean;
  /** Whether a round counts against the run's update limit (`maxUpdates`). */
  countsAgainstLimit(round: { readonly repair: boolean }): boolean;
}
