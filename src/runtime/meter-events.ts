/**
 * The events metering records, whatever engine it meters: one per model call (`model-call`), one when a budget is
 * spent (`budget-stop`), and the tally a run closes its log with (`usage`). A run's log (run/events.ts) and a
 * command's budget report carry the same shapes. `at` is milliseconds since the metered work started. Logs of
 * earlier versions call the first `call` and the other two `budget` (run/upgrade-run-event.ts reads them).
 */

/** One model call. `key`/`attempt`/`sequence` identify it for replay on resume; `text` is the reply. */
export type CallEvent = {
  type: 'model-call';
  at: number;
  taskId?: string;
  purpose: string;
  key?: string;
  attempt?: number;
  sequence?: number;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  durationMs: number;
  text?: string;
  /** The tools the model asked to call: replayed with `text` on resume. */
  toolCalls?: { id: string; name: string; args: unknown }[];
  error?: string;
};

/** A budget was spent: `exceeded` says which, with the usage at that moment. */
export type BudgetStopEvent = {
  type: 'budget-stop';
  at: number;
  calls: number;
  tokens: { input: number; output: number };
  costUsd: number;
  exceeded: string;
};

/** What the work spent in all (a run writes it just before `run-end`). */
export type UsageEvent = {
  type: 'usage';
  at: number;
  calls: number;
  tokens: { input: number; output: number };
  costUsd: number;
};

/** What a meter emits: the events without their time, which the receiver stamps. */
export type MeterEmit = (event: Omit<CallEvent, 'at'> | Omit<BudgetStopEvent, 'at'>) => void;
