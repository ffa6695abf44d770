/**
 * Where a run's subtask attempts execute. By default in-process (`runSubtask`); a distributed run supplies a
 * factory (see `src/workers/`) that sends each attempt elsewhere and reports the calls made there back through
 * `recordCall`, so they count in the run's calls, tokens, cost and budgets like local ones.
 */
import type { ChatResult } from '../llm/chat-model.js';
import type { BudgetGate } from '../runtime/budget.js';
import type { RemoteCall } from '../runtime/metered-model.js';
import type { AttemptOutcome, SubtaskAttempt } from './run-subtask.js';

export type AttemptRunner = (attempt: SubtaskAttempt) => Promise<AttemptOutcome>;

export interface AttemptRunnerContext {
  readonly runId: string;
  /** The run's model spec (`ChatModel.id`); a remote worker builds its model from it. */
  readonly modelId: string;
  /** Throws WeftError('BUDGET') when the run's budget is spent: checked before each dispatch. */
  readonly budget: BudgetGate;
  /** Charges and records one call made elsewhere. Call it once per call, and only for a result that is kept. */
  readonly recordCall: (call: RemoteCall) => void;
  /**
   * Replies recorded before a resume, by `callKey`: a call found here must be answered from it (never made
   * again) and must not be recorded again.
   */
  readonly replay?: ReadonlyMap<string, ChatResult>;
}

export type AttemptRunnerFactory = (context: AttemptRunnerContext) => AttemptRunner;
