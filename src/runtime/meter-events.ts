/**
 * The two events metering records, whatever engine it meters: one per model call, and one when a budget is spent.
 * A run's log (run/events.ts) and a conversation's budget report carry the same shapes. `at` is milliseconds since
 * the metered work started.
 */

/** One model call. `key`/`attempt`/`sequence` identify it for replay on resume; `text` is the reply. */
export type CallEvent = {
  type: 'call';
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

/** The usage so far; `exceeded` says which budget was spent when one was. */
export type BudgetEvent = {
  type: 'budget';
  at: number;
  calls: number;
  tokens: { input: number; output: number };
  costUsd: number;
  exceeded?: string;
};

/** What a meter emits: the events without their time, which the receiver stamps. */
export type MeterEmit = (event: Omit<CallEvent, 'at'> | Omit<BudgetEvent, 'at'>) => void;
